import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, startApp, TestApp } from './support/app';
import { toolBody } from './support/catalog';
import { TEST_PROVIDERS } from './support/test-providers';
import { createTestDatabase, type Engine, type TestDatabase } from './support/databases';
import { waitFor } from './support/wait';

/**
 * A poisoned tool of the training fixtures that the rule checks and the sentence model pass (it scores above
 * catalog.mandatory_review_threshold) but the sentence encoder reads as poisoned: it steers the model to call the
 * provider's plans the best value.
 */
const POISONED = (
  JSON.parse(readFileSync(join(__dirname, 'fixtures/auto-review/attack-training-g.json'), 'utf8')) as {
    name: string;
    description: string;
    inputSchema: unknown;
    permissions: string[];
  }[]
).find((tool) => tool.name === 'subscription_compare')!;
/** Catalog names take hyphens; the encoder reads `subscription_compare` and `subscription-compare` alike. */
const poisonedBody = toolBody(POISONED.name.replace(/_/g, '-'), {
  description: POISONED.description,
  schema: POISONED.inputSchema,
  permissions: POISONED.permissions,
});

/** The model loads in the encoder thread on first use; later tools take a fraction of a second. */
const ENCODER_WAIT_MS = 60_000;

describe.each<Engine>(['pglite', 'postgres'])('review: the sentence encoder (%s)', (engine) => {
  let t: TestApp;
  const autoReview = async (id: string) =>
    (await t.http.get(`/v1/tools/${id}/auto_review`).set(bearer(t.adminKey)).expect(200)).body;
  const tool = async (id: string) => (await t.http.get(`/v1/tools/${id}`).set(bearer(t.adminKey)).expect(200)).body;
  const history = async (id: string) =>
    (await t.http.get(`/v1/tools/${id}/reviews`).set(bearer(t.adminKey)).expect(200)).body.data as {
      decision: string;
      notes: string;
    }[];
  const create = async (body: Record<string, unknown>) =>
    (await t.http.post('/v1/tools').set(bearer(t.adminKey)).send(body).expect(201)).body;

  beforeAll(async () => {
    t = await startApp(engine, {
      config: {
        builtins: { file_search: { enabled: false } },
        catalog: { auto_approve_score: 60, review: { encoder: true } },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('holds automatic approval until the encoder has read a plain tool, then approves it with its score unchanged', async () => {
    const created = await create(toolBody('time-now', { description: 'Returns the current time in UTC.' }));
    expect(created.security_status).toBe('unreviewed');
    expect((await history(created.id))[0].notes).toContain('the sentence encoder has not read it yet');

    await waitFor(async () => (await tool(created.id)).security_status === 'approved', ENCODER_WAIT_MS, 'the encoder');
    const report = await autoReview(created.id);
    expect(report.encoder).toEqual(
      expect.objectContaining({ status: 'done', reading: null, logit: expect.any(Number), error: null }),
    );
    expect(report.score).toBe(report.checks_score);
    expect(report.flags.join('\n')).not.toContain('sentence encoder');
    const decisions = await history(created.id);
    expect(decisions.map((entry) => entry.decision)).toEqual(['unreviewed', 'approved']);
    expect(decisions[1].notes).toContain('sentence encoder: not poisoned');
  });

  it('finds a poisoned tool the rule checks pass, lowers its score and keeps it in quarantine', async () => {
    const created = await create(poisonedBody);
    expect(created.security_status).toBe('unreviewed');
    await waitFor(
      async () => (await autoReview(created.id)).encoder?.status === 'done',
      ENCODER_WAIT_MS,
      'the encoder',
    );

    const report = await autoReview(created.id);
    expect(report.encoder).toEqual(expect.objectContaining({ status: 'done', reading: 'strong' }));
    expect(report.checks_score).toBeGreaterThanOrEqual(70);
    expect(report.score).toBe(report.checks_score - 35);
    expect(report.requires_human_review).toBe(true);
    expect(report.flags).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^the sentence encoder reads the tool as poisoned \(strongly, log-odds \d+\.\d\d\)$/),
      ]),
    );
    expect(report.suggestions).toEqual(
      expect.arrayContaining([expect.stringContaining('instructions aimed at the model')]),
    );
    expect((await tool(created.id)).security_status).toBe('unreviewed');
    expect((await history(created.id)).at(-1)!.notes).toContain('kept in quarantine');
  });

  it('reads a changed definition again', async () => {
    const listed = (await t.http.get('/v1/tools?q=subscription-compare').set(bearer(t.adminKey)).expect(200)).body;
    const id = listed.data[0].id as string;
    const before = await autoReview(id);
    expect(before.encoder.reading).toBe('strong');

    // The same tool without the sentence that steers the model.
    const honest = POISONED.description.slice(0, POISONED.description.indexOf(' Price data'));
    await t.http.put(`/v1/tools/${id}`).set(bearer(t.adminKey)).send({ description: honest }).expect(200);
    await waitFor(async () => (await autoReview(id)).encoder?.status === 'done', ENCODER_WAIT_MS, 'the new reading');
    const report = await autoReview(id);
    expect(report.encoder.reading).not.toBe('strong');
    expect(report.encoder.logit).toBeLessThan(before.encoder.logit);
    expect(report.score).toBeGreaterThan(before.score);
    expect(report.flags.join('\n')).not.toContain('strongly');
  });
});

describe('review: the sentence encoder turned off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp('pglite', {
      config: { builtins: { file_search: { enabled: false } }, catalog: { review: { encoder: false } } },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('keeps no encoder record and leaves the score to the checks', async () => {
    const created = (await t.http.post('/v1/tools').set(bearer(t.adminKey)).send(poisonedBody).expect(201)).body;
    const report = (await t.http.get(`/v1/tools/${created.id}/auto_review`).set(bearer(t.adminKey)).expect(200)).body;
    expect(report.encoder).toBeNull();
    expect(report.score).toBe(report.checks_score);
    expect(report.checks_score).toBeGreaterThanOrEqual(70);
    expect(report.flags.join('\n')).not.toContain('sentence encoder');
  });
});

describe('review: the sentence encoder across a restart', () => {
  let database: TestDatabase;
  const config = {
    builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
    catalog: { review: { encoder: true } },
  };
  const echoReview = async (t: TestApp) => {
    const list = await t.http.get('/v1/tools?type=builtin&limit=100').set(bearer(t.adminKey)).expect(200);
    const echo = list.body.data.find((entry: { name: string }) => entry.name === 'echo');
    return (await t.http.get(`/v1/tools/${echo.id}/auto_review`).set(bearer(t.adminKey)).expect(200)).body;
  };

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('reads a built-in tool once, not again at every start', async () => {
    const first = await startApp('pglite', { config, database, providers: TEST_PROVIDERS });
    let reading: unknown;
    try {
      await waitFor(async () => (await echoReview(first)).encoder?.status === 'done', ENCODER_WAIT_MS, 'the encoder');
      reading = (await echoReview(first)).encoder;
    } finally {
      await first.close();
    }
    const second = await startApp('pglite', { config, database, providers: TEST_PROVIDERS });
    try {
      // The same record, checked_at included: the start assessed the built-in again but kept its reading.
      expect((await echoReview(second)).encoder).toEqual(reading);
    } finally {
      await second.close();
    }
  }, 120_000);
});
