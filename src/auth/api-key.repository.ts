import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../common/list.dto';
import { paginate } from '../common/paginate';
import { ApiKeyEntity } from './api-key.entity';

/** The `api_keys` table. */
@Injectable()
export class ApiKeyRepository {
  private readonly keys: Repository<ApiKeyEntity>;

  constructor(dataSource: DataSource) {
    this.keys = dataSource.getRepository(ApiKeyEntity);
  }

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.keys.insert(key);
  }

  find(where: { id: string } | { secretHash: string }): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy(where);
  }

  page<T>(tenantId: string | undefined, query: ListQueryDto, present: (key: ApiKeyEntity) => T): Promise<ListPage<T>> {
    const builder = this.keys.createQueryBuilder('key');
    if (tenantId) builder.where('key.tenantId = :tenantId', { tenantId });
    return paginate(builder, query, present);
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.keys.update({ id }, { revokedAt: at });
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.keys.update({ id }, { lastUsedAt: at });
  }

  async rename(id: string, name: string): Promise<void> {
    await this.keys.update({ id }, { name });
  }

  async delete(id: string): Promise<void> {
    await this.keys.delete({ id });
  }

  /** Revokes every active bootstrap admin key (the configured one replaces them). */
  async revokeActiveBootstrapKeys(at: Date): Promise<void> {
    await this.keys.update({ bootstrap: true, revokedAt: IsNull() }, { revokedAt: at });
  }

  /** Whether a bootstrap key exists; with `name`, an active one of that name. */
  bootstrapKeyExists(name?: string): Promise<boolean> {
    return this.keys.existsBy(
      name === undefined ? { bootstrap: true } : { bootstrap: true, name, revokedAt: IsNull() },
    );
  }
}
