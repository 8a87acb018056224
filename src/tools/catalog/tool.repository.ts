import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import type { SecurityStatus, ToolSource } from './catalog.types';
import { ToolEntity } from './tool.entity';

/** The catalog listing's filters; `visibleTo` confines a member to its tenant's entries and the tools it may call. */
export interface ToolListFilter {
  visibleTo?: { tenantId: string; toolIds: string[] };
  type?: string;
  tag?: string;
  securityStatus?: SecurityStatus;
  /** Matched, case-insensitively, anywhere in the name or description. */
  text?: string;
}

/**
 * The `tools` table: every catalog entry, whatever its origin. Methods that take an EntityManager run in the
 * caller's transaction.
 */
@Injectable()
export class ToolRepository {
  private readonly tools: Repository<ToolEntity>;

  constructor(dataSource: DataSource) {
    this.tools = dataSource.getRepository(ToolEntity);
  }

  all(manager?: EntityManager): Promise<ToolEntity[]> {
    return this.of(manager).find();
  }

  byId(id: string): Promise<ToolEntity | null> {
    return this.tools.findOneBy({ id });
  }

  byIds(ids: string[]): Promise<ToolEntity[]> {
    return ids.length ? this.tools.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  /** The entry, row-locked until the transaction ends. */
  lockById(manager: EntityManager, id: string): Promise<ToolEntity | null> {
    return manager.getRepository(ToolEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async save(tool: ToolEntity, manager?: EntityManager): Promise<void> {
    await this.of(manager).save(tool);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(ToolEntity).delete({ id });
  }

  async markStaleByName(manager: EntityManager, names: string[], now: Date): Promise<void> {
    if (names.length) await this.of(manager).update({ name: In(names) }, { stale: true, updatedAt: now });
  }

  /** The entries discovered on the MCP server of that name. */
  ofMcpServer(manager: EntityManager, serverName: string): Promise<ToolEntity[]> {
    return manager
      .getRepository(ToolEntity)
      .createQueryBuilder('tool')
      .where(`tool.source ->> 'type' = 'mcp' AND tool.source ->> 'server_name' = :name`, { name: serverName })
      .getMany();
  }

  /** Locks the entries discovered on an MCP server (isDiscoveredOn) until the transaction ends. */
  lockDiscoveredOn(manager: EntityManager, serverName: string): Promise<void> {
    return lockWhere(manager, `source->>'type' = 'mcp' AND source->>'server_name' = $1 AND owner_tenant_id IS NULL`, [
      serverName,
    ]);
  }

  /** Locks the built-in tools' entries until the transaction ends. */
  lockBuiltins(manager: EntityManager): Promise<void> {
    return lockWhere(manager, `source->>'type' = 'builtin'`, []);
  }

  async markMcpServerStale(manager: EntityManager, serverName: string, now: Date): Promise<void> {
    await manager.query(
      `UPDATE tools SET stale = true, updated_at = $2 WHERE source->>'type' = 'mcp' AND source->>'server_name' = $1`,
      [serverName, now],
    );
  }

  async setSource(manager: EntityManager, id: string, source: ToolSource): Promise<void> {
    await manager.getRepository(ToolEntity).update({ id }, { source });
  }

  /** Ids of entries whose definition waits for the model judge (new, changed, or judged while it was down), oldest first. */
  async awaitingJudge(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.tools.query(
      `SELECT id FROM tools WHERE auto_review->'judge'->>'status' IN ('pending', 'unavailable') ORDER BY updated_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Ids of entries whose definition waits for the sentence encoder: new or changed ones oldest first, then those it
   * failed on (retried after every definition not yet tried).
   */
  async awaitingEncoder(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.tools.query(
      `SELECT id FROM tools WHERE auto_review->'encoder'->>'status' IN ('pending', 'unavailable')
       ORDER BY auto_review->'encoder'->>'status' = 'unavailable', updated_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  page<T>(filter: ToolListFilter, query: ListQueryDto, present: (tool: ToolEntity) => T): Promise<ListPage<T>> {
    const builder = this.tools.createQueryBuilder('tool');
    if (filter.visibleTo) {
      const { tenantId, toolIds } = filter.visibleTo;
      builder.where(
        toolIds.length ? '(tool.ownerTenantId = :tenant OR tool.id IN (:...visible))' : 'tool.ownerTenantId = :tenant',
        { tenant: tenantId, visible: toolIds },
      );
    }
    if (filter.type) builder.andWhere(`tool.source ->> 'type' = :type`, { type: filter.type });
    if (filter.tag) builder.andWhere(':tag = ANY(tool.tags)', { tag: filter.tag });
    if (filter.securityStatus) builder.andWhere('tool.securityStatus = :status', { status: filter.securityStatus });
    if (filter.text) {
      const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      builder.andWhere('(tool.name ILIKE :pattern OR tool.description ILIKE :pattern)', { pattern });
    }
    return paginate(builder, query, present);
  }

  private of(manager?: EntityManager): Repository<ToolEntity> {
    return manager ? manager.getRepository(ToolEntity) : this.tools;
  }
}

/** Row-locks the entries matching `where`, in id order (two transactions locking overlapping sets never wait in a cycle). */
async function lockWhere(manager: EntityManager, where: string, values: unknown[]): Promise<void> {
  await manager.query(`SELECT id FROM tools WHERE ${where} ORDER BY id FOR UPDATE`, values);
}
