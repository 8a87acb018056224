import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { FileBatchEntity } from './file-batch.entity';

/** file_search_file_batches: batches of files added to a store together. */
@Injectable()
export class FileBatchRepository {
  private readonly batches: Repository<FileBatchEntity>;

  constructor(dataSource: DataSource) {
    this.batches = dataSource.getRepository(FileBatchEntity);
  }

  async insert(batch: FileBatchEntity, manager: EntityManager): Promise<void> {
    await manager.getRepository(FileBatchEntity).insert(batch);
  }

  find(tenantId: string, vectorStoreId: string, id: string): Promise<FileBatchEntity | null> {
    return this.batches.findOneBy({ id, tenantId, vectorStoreId });
  }

  async markCancelled(id: string, cancelledAt: Date, manager: EntityManager): Promise<void> {
    await manager.getRepository(FileBatchEntity).update({ id }, { cancelledAt });
  }
}
