import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import { McpSourceEntity } from './mcp-source.entity';

/** The outcome of one discovery, kept on the source. */
export interface DiscoveryRecord {
  at: Date;
  status: 'ok' | 'error';
  error: string | null;
  /** Left as it was when null (a failed discovery does not know the count). */
  toolCount: number | null;
  nextRefreshAt: Date;
}

/** The `mcp_sources` table. */
@Injectable()
export class McpSourceRepository {
  private readonly sources: Repository<McpSourceEntity>;

  constructor(dataSource: DataSource) {
    this.sources = dataSource.getRepository(McpSourceEntity);
  }

  all(): Promise<McpSourceEntity[]> {
    return this.sources.find();
  }

  byName(name: string): Promise<McpSourceEntity | null> {
    return this.sources.findOneBy({ name });
  }

  byOrigin(origin: McpSourceEntity['origin']): Promise<McpSourceEntity[]> {
    return this.sources.findBy({ origin });
  }

  page<T>(query: ListQueryDto, present: (source: McpSourceEntity) => T): Promise<ListPage<T>> {
    return paginate(this.sources.createQueryBuilder('source'), query, present);
  }

  /** Auto-discovered sources whose next refresh is at or before `now` (or never planned). */
  due(now: Date): Promise<McpSourceEntity[]> {
    return this.sources
      .createQueryBuilder('source')
      .where('source.autoDiscover = true')
      .andWhere('(source.nextRefreshAt IS NULL OR source.nextRefreshAt <= :now)', { now })
      .getMany();
  }

  /** Fails with the driver's unique violation when the name is taken. */
  async insert(source: McpSourceEntity): Promise<void> {
    await this.sources.insert(source);
  }

  async save(source: McpSourceEntity, manager?: EntityManager): Promise<void> {
    await (manager ? manager.getRepository(McpSourceEntity) : this.sources).save(source);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(McpSourceEntity, { id });
  }

  async recordDiscovery(id: string, record: DiscoveryRecord): Promise<void> {
    await this.sources.query(
      `UPDATE mcp_sources SET last_discovery_at = $2, last_discovery_status = $3, last_discovery_error = $4,
              last_tool_count = coalesce($5, last_tool_count), next_refresh_at = $6 WHERE id = $1`,
      [id, record.at, record.status, record.error, record.toolCount, record.nextRefreshAt],
    );
  }
}
