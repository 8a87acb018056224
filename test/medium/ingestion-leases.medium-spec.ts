import { FILE_SEARCH_ENTITIES } from '../../src/tools/builtins/file-search/file-search.entities';
import { FileEntity } from '../../src/tools/builtins/file-search/files/file.entity';
import { FileRepository } from '../../src/tools/builtins/file-search/files/file.repository';
import { FileBatchEntity } from '../../src/tools/builtins/file-search/vector-store-files/file-batch.entity';
import { FileBatchRepository } from '../../src/tools/builtins/file-search/vector-store-files/file-batch.repository';
import {
  LeasedJob,
  VectorStoreFileRepository,
} from '../../src/tools/builtins/file-search/vector-store-files/vector-store-file.repository';
import type { IngestionProgress } from '../../src/tools/builtins/file-search/vector-store-files/vector-store-file.entity';
import { VectorStoreEntity } from '../../src/tools/builtins/file-search/vector-stores/vector-store.entity';
import { VectorStoreRepository } from '../../src/tools/builtins/file-search/vector-stores/vector-store.repository';
import { ENGINES } from '../support/databases';
import { mediumContext, MediumContext } from '../support/medium';

const TENANT = 'tenant_medium';
const CHUNKING = { size: 800, overlap: 400 };
const LEASE_MS = 60_000;
const DONE: IngestionProgress = {
  stage: 'done',
  file_bytes: 10,
  characters_total: 10,
  characters_done: 10,
  chunks_done: 1,
};

/** Ingestion jobs are rows of file_search_vector_store_files leased to workers of any replica. */
describe.each(ENGINES)('ingestion job leases (%s)', (engine) => {
  let ctx: MediumContext;
  let jobs: VectorStoreFileRepository;
  let stores: VectorStoreRepository;
  let files: FileRepository;
  let batches: FileBatchRepository;

  beforeAll(async () => {
    ctx = await mediumContext(engine, {
      entities: FILE_SEARCH_ENTITIES,
      providers: [VectorStoreFileRepository, VectorStoreRepository, FileRepository, FileBatchRepository],
    });
    jobs = ctx.module.get(VectorStoreFileRepository);
    stores = ctx.module.get(VectorStoreRepository);
    files = ctx.module.get(FileRepository);
    batches = ctx.module.get(FileBatchRepository);
  });
  afterAll(() => ctx?.close());
  // Each test starts from an empty queue, so none depends on another's jobs.
  beforeEach(() =>
    ctx.dataSource.query('TRUNCATE file_search_file_batches, file_search_vector_stores, file_search_files CASCADE'),
  );

  async function storeWithFiles(
    count: number,
    batchId: string | null = null,
  ): Promise<{ storeId: string; fileIds: string[] }> {
    const now = new Date();
    const storeId = `vs_${Math.random().toString(36).slice(2)}`;
    await stores.insert(
      Object.assign(new VectorStoreEntity(), {
        id: storeId,
        tenantId: TENANT,
        name: 'docs',
        description: null,
        metadata: {},
        expiresAfterDays: null,
        lastActiveAt: now,
        createdAt: now,
      }),
    );
    const fileIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `file_${storeId}_${i}`;
      await files.insert(
        Object.assign(new FileEntity(), {
          id,
          tenantId: TENANT,
          filename: `${i}.txt`,
          purpose: 'assistants',
          bytes: 10,
          state: 'uploaded',
          expiresAt: null,
          createdAt: now,
        }),
      );
      fileIds.push(id);
    }
    if (batchId) {
      const batch = Object.assign(new FileBatchEntity(), {
        id: batchId,
        tenantId: TENANT,
        vectorStoreId: storeId,
        cancelledAt: null,
        createdAt: now,
      });
      await batches.insert(batch, ctx.dataSource.manager);
    }
    await jobs.enqueue(
      TENANT,
      storeId,
      fileIds.map((fileId) => ({ fileId, attributes: null, chunking: CHUNKING })),
      batchId,
      now,
    );
    return { storeId, fileIds };
  }

  it('gives concurrent workers different jobs, each once, and none when the queue is empty', async () => {
    const { fileIds } = await storeWithFiles(5);
    const claimed = await Promise.all(Array.from({ length: 8 }, (_, i) => jobs.claim(`worker-${i}`, LEASE_MS)));
    const got = claimed.filter((job): job is LeasedJob => job !== undefined).map((job) => job.file_id);
    expect(got.sort()).toEqual([...fileIds].sort());
    expect(claimed.filter((job) => job === undefined)).toHaveLength(3);
    expect(claimed.find((job) => job)?.attempts).toBe(1);
  });

  it('lets only the lease holder complete a job, and a completed job is not claimed again', async () => {
    const { storeId, fileIds } = await storeWithFiles(1);
    const job = (await jobs.claim('worker-a', LEASE_MS))!;
    const intruder = { ...job, token: 'worker-b' };
    expect(await jobs.complete(intruder, 10, DONE, ctx.dataSource.manager)).toBe(false);
    expect(await jobs.complete(job, 10, DONE, ctx.dataSource.manager)).toBe(true);
    expect(await jobs.renewLease(job, LEASE_MS)).toBe(false);
    expect(await jobs.claim('worker-c', LEASE_MS)).toBeUndefined();
    const row = await jobs.find(TENANT, storeId, fileIds[0]);
    expect(row).toMatchObject({ status: 'completed', leaseOwner: null });
  });

  it('hands a released job back once its delay is over, counting the attempt', async () => {
    await storeWithFiles(1);
    const first = (await jobs.claim('worker-a', LEASE_MS))!;
    await jobs.releaseLease(first, 0);
    const second = (await jobs.claim('worker-b', LEASE_MS))!;
    expect(second).toMatchObject({ file_id: first.file_id, attempts: 2 });
    await jobs.releaseLease(second, LEASE_MS);
    expect(await jobs.claim('worker-c', LEASE_MS)).toBeUndefined();
  });

  it('returns the jobs of a stopping replica at once, without counting their attempt', async () => {
    await storeWithFiles(2);
    const first = (await jobs.claim('replica-1:w0', LEASE_MS))!;
    const second = (await jobs.claim('replica-2:w0', LEASE_MS))!;
    await jobs.releaseLeasesOf('replica-1:');
    const again = (await jobs.claim('replica-3:w0', LEASE_MS))!;
    expect(again.file_id).toBe(first.file_id);
    expect(again.attempts).toBe(1);
    expect(await jobs.renewLease(second, LEASE_MS)).toBe(true);
  });

  it('stops a worker whose batch was cancelled: no renewal, no completion', async () => {
    const { storeId, fileIds } = await storeWithFiles(1, 'vsfb_1');
    const job = (await jobs.claim('worker-a', LEASE_MS))!;
    expect(await ctx.dataSource.transaction((m) => jobs.cancelBatch(TENANT, 'vsfb_1', m))).toBe(1);
    expect(await jobs.renewLease(job, LEASE_MS)).toBe(false);
    expect(await jobs.complete(job, 10, DONE, ctx.dataSource.manager)).toBe(false);
    expect(await jobs.find(TENANT, storeId, fileIds[0])).toMatchObject({ status: 'cancelled' });
  });

  it('restarts a re-added file from scratch, and the old lease can no longer finish it', async () => {
    const { storeId, fileIds } = await storeWithFiles(1);
    const old = (await jobs.claim('worker-a', LEASE_MS))!;
    await jobs.enqueue(
      TENANT,
      storeId,
      [{ fileId: fileIds[0], attributes: { v: 2 }, chunking: CHUNKING }],
      null,
      new Date(),
    );
    expect(await jobs.fail(old, 'invalid_file', 'late', ctx.dataSource.manager)).toBe(false);
    const fresh = (await jobs.claim('worker-b', LEASE_MS))!;
    expect(fresh).toMatchObject({ file_id: fileIds[0], attempts: 1 });
    expect((await jobs.find(TENANT, storeId, fileIds[0]))?.attributes).toEqual({ v: 2 });
  });
});
