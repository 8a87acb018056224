import { Injectable } from '@nestjs/common';
import { ApiError } from '../../../common/api-error';
import { ListPage } from '../../../common/list.dto';
import type { Identity } from '../../../tenancy/request-context';
import { AuditRecordEntity } from './audit-record.entity';
import { AuditBound, AuditFilter, AuditRecordRepository } from './audit-record.repository';
import type { AuditQueryDto, AuditRecordDto } from './audit.dto';

const EXPORT_BATCH = 500;

@Injectable()
export class AuditQueryService {
  constructor(private readonly records: AuditRecordRepository) {}

  async list(caller: Identity, query: AuditQueryDto): Promise<ListPage<AuditRecordDto>> {
    const limit = query.limit ?? 100;
    const rows = await this.records.list(await this.filter(caller, query), limit + 1);
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
      const rows = await this.records.list(await this.filter(caller, page), EXPORT_BATCH);
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
  private async filter(caller: Identity, query: AuditQueryDto): Promise<AuditFilter> {
    const tenantId = caller.role === 'admin' ? query.tenant_id : caller.tenantId;
    return {
      tenantId,
      toolName: query.tool_name,
      toolId: query.tool_id,
      status: query.status,
      responseId: query.response_id,
      after: await this.bound(query.after, 'after', tenantId),
      before: await this.bound(query.before, 'before', tenantId),
      order: query.order ?? 'desc',
    };
  }

  private async bound(value: string | undefined, param: string, tenantId?: string): Promise<AuditBound | undefined> {
    if (!value) return undefined;
    if (!value.startsWith('audit_')) {
      const time = new Date(value);
      if (Number.isNaN(time.getTime())) throw ApiError.invalid(`${param} is not a valid time`, param);
      return { time };
    }
    const record = await this.records.byId(value, tenantId);
    if (!record) throw ApiError.invalid(`No audit record found with id '${value}' to page from`, param);
    return { record };
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
    ...(record.guardFindings && { guard_findings: record.guardFindings }),
  };
}
