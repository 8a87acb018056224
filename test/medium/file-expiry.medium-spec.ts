import { FILE_SEARCH_ENTITIES } from '../../src/tools/builtins/file-search/file-search.entities';
import { FileEntity } from '../../src/tools/builtins/file-search/files/file.entity';
import { FileRepository } from '../../src/tools/builtins/file-search/files/file.repository';
import { ENGINES } from '../support/databases';
import { mediumContext, MediumContext } from '../support/medium';

const TENANT = 'tenant_medium';
/** Far from the database's clock on either side, so only the time handed in can decide. */
const PAST = new Date('2001-01-01T00:00:00Z');
const FUTURE = new Date('2101-01-01T00:00:00Z');

/** File expiry is decided by the time the service hands in (its Clock), not by the database's clock. */
describe.each(ENGINES)('file expiry (%s)', (engine) => {
  let ctx: MediumContext;
  let files: FileRepository;

  beforeAll(async () => {
    ctx = await mediumContext(engine, { entities: FILE_SEARCH_ENTITIES, providers: [FileRepository] });
    files = ctx.module.get(FileRepository);
  });
  afterAll(() => ctx?.close());
  beforeEach(() => ctx.dataSource.query('TRUNCATE file_search_files CASCADE'));

  async function insertFile(
    id: string,
    fields: { createdAt: Date; expiresAt: Date | null; state?: FileEntity['state'] },
  ): Promise<void> {
    await files.insert(
      Object.assign(new FileEntity(), {
        id,
        tenantId: TENANT,
        filename: `${id}.txt`,
        purpose: 'assistants',
        bytes: 10,
        state: fields.state ?? 'uploaded',
        expiresAt: fields.expiresAt,
        createdAt: fields.createdAt,
      }),
    );
  }

  const at = (date: Date, ms: number) => new Date(date.getTime() + ms);
  const listed = async (now: Date) => (await files.listVisible(TENANT, {}, now)).data.map((file) => file.id);

  it('shows a file until the given time reaches its expiry', async () => {
    await insertFile('file_future', { createdAt: at(FUTURE, -3_600_000), expiresAt: FUTURE });
    await insertFile('file_past', { createdAt: at(PAST, -3_600_000), expiresAt: PAST });

    expect(await files.findVisible(TENANT, 'file_future', at(FUTURE, -1))).not.toBeNull();
    expect(await files.findVisible(TENANT, 'file_future', FUTURE)).toBeNull();
    expect(await files.findVisible(TENANT, 'file_past', at(PAST, -1))).not.toBeNull();
    expect(await listed(at(PAST, -1))).toEqual(expect.arrayContaining(['file_future', 'file_past']));
    expect(await listed(PAST)).toEqual(['file_future']);
    expect(await listed(FUTURE)).toEqual([]);
  });

  it('sweeps files expired by the given time and uploads abandoned before the given cutoff', async () => {
    await insertFile('file_abandoned', { createdAt: PAST, expiresAt: null, state: 'uploading' });
    await insertFile('file_expiring', { createdAt: PAST, expiresAt: at(PAST, 86_400_000) });
    await insertFile('file_kept', { createdAt: PAST, expiresAt: null });

    expect(await files.deleteAbandonedAndExpired(at(PAST, -1), at(PAST, 86_399_999))).toBe(0);
    expect(await files.deleteAbandonedAndExpired(at(PAST, 1), at(PAST, 86_400_000))).toBe(2);
    expect(await files.findById('file_kept')).not.toBeNull();
  });
});
