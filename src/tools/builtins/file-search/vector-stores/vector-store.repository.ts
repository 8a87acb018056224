import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../../../common/list.dto';
import { paginate } from '../../../../common/paginate';
import { VectorStoreEntity } from './vector-store.entity';

export type VectorStoreChanges = Partial<Pick<VectorStoreEntity, 'name' | 'metadata' | 'expiresAfterDays'>>;

/** file_search_vector_stores: tenants' vector stores. */
@Injectable()
export class VectorStoreRepository {
  private readonly stores: Repository<VectorStoreEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.stores = dataSource.getRepository(VectorStoreEntity);
  }

  async insert(store: VectorStoreEntity, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.getRepository(VectorStoreEntity).insert(store);
  }

  list(tenantId: string, query: ListQueryDto): Promise<ListPage<VectorStoreEntity>> {
    const builder = this.stores.createQueryBuilder('store').where('store.tenantId = :tenantId', { tenantId });
    return paginate(builder, query, (store) => store);
  }

  find(tenantId: string, id: string): Promise<VectorStoreEntity | null> {
    return this.stores.findOneBy({ id, tenantId });
  }

  async update(tenantId: string, id: string, changes: VectorStoreChanges): Promise<void> {
    await this.stores.update({ id, tenantId }, changes);
  }

  /** Files, batches, chunks and vectors go with it (foreign keys cascade). */
  async delete(tenantId: string, id: string): Promise<void> {
    await this.stores.delete({ id, tenantId });
  }

  /** Sets last_active_at to `now`. */
  async markActive(tenantId: string, ids: string[], now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE file_search_vector_stores SET last_active_at = $3 WHERE id = ANY($1::varchar[]) AND tenant_id = $2`,
      [ids, tenantId, now],
    );
  }
}
