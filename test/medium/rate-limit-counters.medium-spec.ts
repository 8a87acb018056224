import { RateLimitCounterRepository } from '../../src/tools/catalog/rate-limits/rate-limit-counter.repository';
import { ENGINES } from '../support/databases';
import { mediumContext, MediumContext } from '../support/medium';
import { waitFor } from '../support/wait';

const START = new Date('2026-03-01T10:00:00Z');
const counterOf = (toolId: string, tenantId = 'acme') => ({ toolId, tenantId, window: 'minute', start: START });

/** Rate-limit counters are exact across replicas: the calls of every counter that arrive together share a statement. */
describe.each(ENGINES)('rate-limit counters (%s)', (engine) => {
  let ctx: MediumContext;
  let counters: RateLimitCounterRepository;

  beforeAll(async () => {
    ctx = await mediumContext(engine, { entities: [], providers: [RateLimitCounterRepository] });
    counters = ctx.module.get(RateLimitCounterRepository);
  });
  afterAll(() => ctx?.close());
  beforeEach(() => ctx.dataSource.query('TRUNCATE rate_limit_counters'));

  const stored = async (toolId: string, tenantId = 'acme') =>
    (
      await ctx.dataSource.query(`SELECT count FROM rate_limit_counters WHERE tool_id = $1 AND tenant_id = $2`, [
        toolId,
        tenantId,
      ])
    )[0]?.count as number | undefined;

  it('counts the calls of several counters arriving together up to each one limit, first come first counted', async () => {
    await counters.increment(undefined, counterOf('tool_a'), 10);
    const calls = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0
        ? { key: counterOf('tool_a'), max: 10 }
        : { key: counterOf('tool_b', i % 3 === 1 ? 'acme' : 'globex'), max: 7 },
    );
    const counted = await Promise.all(calls.map(({ key, max }) => counters.increment(undefined, key, max)));
    const countedOf = (toolId: string, tenantId: string) =>
      counted.filter((taken, i) => taken && calls[i].key.toolId === toolId && calls[i].key.tenantId === tenantId);
    expect(countedOf('tool_a', 'acme')).toHaveLength(9);
    expect(countedOf('tool_b', 'acme')).toHaveLength(7);
    expect(countedOf('tool_b', 'globex')).toHaveLength(7);
    // In each counter the first calls are those counted.
    const ofA = counted.filter((_, i) => i % 3 === 0);
    expect(ofA).toEqual([...Array(9).fill(true), ...Array(11).fill(false)]);
    expect([await stored('tool_a'), await stored('tool_b'), await stored('tool_b', 'globex')]).toEqual([10, 7, 7]);
  });

  if (engine === 'postgres')
    it('counts exactly when another replica creates the counter while a batch is counting it', async () => {
      // Another replica's first call of the window: its counter row is inserted, not yet committed.
      const replica = ctx.dataSource.createQueryRunner();
      await replica.connect();
      await replica.startTransaction();
      await replica.query(
        `INSERT INTO rate_limit_counters (tool_id, tenant_id, window_name, window_start, count) VALUES ($1, $2, $3, $4, 3)`,
        ['tool_c', 'acme', 'minute', START],
      );
      // The first call goes alone at once; the next two wait for it and then share one statement, which finds no
      // counter in its snapshot and waits on the other replica's insert.
      const first = counters.increment(undefined, counterOf('tool_d'), 5);
      const batch = [
        counters.increment(undefined, counterOf('tool_c'), 5),
        counters.increment(undefined, counterOf('tool_c'), 5),
      ];
      await first;
      await waitFor(
        async () =>
          (
            await ctx.dataSource.query(
              `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%unnest%rate_limit_counters%'`,
            )
          ).length === 1,
        10_000,
        'the batch statement waiting on the uncommitted counter',
      );
      await replica.commitTransaction();
      await replica.release();
      // Counted one by one from the other replica's 3: both fit under 5, and nothing is counted twice.
      expect(await Promise.all(batch)).toEqual([true, true]);
      expect(await stored('tool_c')).toBe(5);
      expect(await counters.increment(undefined, counterOf('tool_c'), 5)).toBe(false);
    });
});
