import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { ApiError } from '../../../common/api-error';
import { ListPage } from '../../../common/list.dto';
import type { Identity } from '../../../tenancy/request-context';
import { AuditRecordEntity } from './audit-record.entity';
import type { AuditQueryDto, AuditRecordDto } from './audit.dto';

const EXPORT_BATCH = 500;

@Injectable()
export class AuditQueryService {
  private readonly records: Repository<AuditRecordEntity>;

  constructor(dataSource: DataSource) {
    this.records = dataSource.getRepository(AuditRecordEntity);
  }

  async list(caller: Identity, query: AuditQueryDto): Promise<ListPage<AuditRecordDto>> {
    const limit = query.limit ?? 100;
    const builder = await this.filtered(caller, query);
    const rows = await builder.take(limit + 1).getMany();
    const page = rows.slice(0, limit);
    return {
      object: 'list',
      data: page.map(presentAuditRecord),
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: rows.length > limit,
    };
  }

  /**
   * Every matching record, oldest first by default, read in keyset batches so memory stays flat: each
   * batch's last id becomes the bound of the next (it implies the original time bound on that side).
   */
  async *export(caller: Identity, query: AuditQueryDto): AsyncGenerator<AuditRecordDto> {
    let page: AuditQueryDto = { ...query, order: query.order ?? 'asc' };
    for (;;) {
      const rows = await (await this.filtered(caller, page)).take(EXPORT_BATCH).getMany();
      for (const row of rows) yield presentAuditRecord(row);
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1].id;
      page = page.order === 'asc' ? { ...page, after: last } : { ...page, before: last };
    }
  }

  /**
   * Members are confined to their own tenant whatever they ask. `after`/`before` are times, or record
   * ids to page from (keyset on (timestamp, id)).
   */
  private async filtered(caller: Identity, query: AuditQueryDto): Promise<SelectQueryBuilder<AuditRecordEntity>> {
    const builder = this.records.createQueryBuilder('record');
    const tenantId = caller.role === 'admin' ? query.tenant_id : caller.tenantId;
    if (tenantId) builder.andWhere('record.tenantId = :tenantId', { tenantId });
    if (query.tool_name) builder.andWhere('record.toolName = :toolName', { toolName: query.tool_name });
    if (query.tool_id) builder.andWhere('record.toolId = :toolId', { toolId: query.tool_id });
    if (query.status) builder.andWhere('record.status = :status', { status: query.status });
    if (query.response_id) builder.andWhere('record.responseId = :responseId', { responseId: query.response_id });
    await this.bound(builder, query.after, '>', 'after', tenantId);
    await this.bound(builder, query.before, '<', 'before', tenantId);
    const direction = (query.order ?? 'desc') === 'asc' ? 'ASC' : 'DESC';
    return builder.orderBy('record.createdAt', direction).addOrderBy('record.id', direction);
  }

  private async bound(
    builder: SelectQueryBuilder<AuditRecordEntity>,
    value: string | undefined,
    comparator: '>' | '<',
    param: string,
    tenantId?: string,
  ): Promise<void> {
    if (!value) return;
    if (!value.startsWith('audit_')) {
      const time = new Date(value);
      if (Number.isNaN(time.getTime())) throw ApiError.invalid(`${param} is not a valid time`, param);
      builder.andWhere(`record.createdAt ${comparator === '>' ? '>=' : '<'} :${param}Time`, { [`${param}Time`]: time });
      return;
    }
    const cursor = await this.records.findOneBy({ id: value, ...(tenantId && { tenantId }) });
    if (!cursor) throw ApiError.invalid(`No audit record found with id '${value}' to page from`, param);
    builder.andWhere(
      new Brackets((where) =>
        where.where(`(record.createdAt, record.id) ${comparator} (:${param}At, :${param}Id)`, {
          [`${param}At`]: cursor.createdAt,
          [`${param}Id`]: cursor.id,
        }),
      ),
    );
  }
}

export function presentAuditRecord(record: AuditRecordEntity): AuditRecordDto {
  return {
    id: record.id,
    object: 'tool_audit_record',
    timestamp: record.createdAt.toISOString(),
    tenant_id: record.tenantId,
    ...(record.agentId && { agent_id: record.agentId }),
    ...(record.userId && { user_id: record.userId }),
    tool_id: record.toolId,
    tool_name: record.toolName,
    call_id: record.callId,
    status: record.status,
    duration_ms: record.durationMs,
    audit_level: record.auditLevel,
    ...(record.inputArgs !== null && { input_args: record.inputArgs }),
    ...(record.outputSize !== null && { output_size: record.outputSize }),
    ...(record.output !== null && { output: record.output }),
    ...(record.error !== null && { error: record.error }),
    ...(record.responseId !== null && { response_id: record.responseId }),
    injection_suspected: record.injectionSuspected,
  };
}
