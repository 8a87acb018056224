import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { Clock } from '../../../common/clock';
import { newId } from '../../../common/ids';
import { AppConfig } from '../../../config/app-config';
import type { ToolCallStatus } from '../../invocation/tool-call';
import { ToolCallAudit, ToolCallOutcome } from '../../invocation/tool-call-audit';
import { AuditRecordEntity, AuditStatus } from './audit-record.entity';
import { DEFAULT_SECRET_KEYS, Redactor } from './redaction';

const STATUS: Record<Exclude<ToolCallStatus, 'in_progress'>, AuditStatus> = {
  completed: 'success',
  failed: 'error',
  denied: 'denied',
  rate_limited: 'rate_limited',
  cancelled: 'cancelled',
};

/**
 * Writes seed 001's audit record for every call of a tool whose audit level is not `none`, refusals
 * included. The dispatcher awaits `record`, so the row is committed before the caller gets its answer.
 */
@Injectable()
export class AuditTrail extends ToolCallAudit {
  private readonly records: Repository<AuditRecordEntity>;
  private readonly redactor: Redactor;

  constructor(
    dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super();
    this.records = dataSource.getRepository(AuditRecordEntity);
    this.redactor = new Redactor([...DEFAULT_SECRET_KEYS, ...config.audit.redact_keys]);
  }

  async record({ identity, tool, arguments: args, toolCall }: ToolCallOutcome): Promise<void> {
    const level = tool.governance?.auditLevel ?? 'basic';
    if (level === 'none' || toolCall.status === 'in_progress') return;
    const full = level === 'full';
    const output =
      full && toolCall.output !== null && toolCall.output !== undefined
        ? this.truncatedOutput(toolCall.output)
        : undefined;
    await this.records.insert({
      id: newId('audit_'),
      createdAt: this.clock.now(),
      tenantId: identity.tenantId,
      agentId: identity.agentProfile ?? null,
      userId: identity.subject,
      toolId: tool.governance?.toolId ?? null,
      toolName: tool.name,
      callId: toolCall.call_id,
      status: STATUS[toolCall.status],
      durationMs: toolCall.duration_ms,
      auditLevel: level,
      inputArgs: full ? (this.redactor.redact(args ?? null) as object | null) : null,
      outputSize: output?.size ?? null,
      output: output?.text ?? null,
      error: toolCall.error ? this.redactor.redactText(`${toolCall.error.code}: ${toolCall.error.message}`) : null,
      responseId: toolCall.response_id,
    });
  }

  /** Redacted JSON cut to the configured size at a character boundary; `size` is the real size. */
  private truncatedOutput(output: unknown): { text: string; size: number } {
    const text =
      typeof output === 'string' ? this.redactor.redactText(output) : JSON.stringify(this.redactor.redact(output));
    const size = Buffer.byteLength(typeof output === 'string' ? output : JSON.stringify(output));
    const limit = this.config.audit.max_output_bytes;
    if (Buffer.byteLength(text) <= limit) return { text, size };
    return {
      text: Buffer.from(text)
        .subarray(0, limit)
        .toString('utf8')
        .replace(/\uFFFD$/, ''),
      size,
    };
  }
}
