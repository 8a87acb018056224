import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { newId } from '../../../common/ids';
import { AppConfig } from '../../../config/app-config';
import type { ToolCallStatus } from '../../invocation/tool-call';
import { StartedRecord, ToolCallAudit, ToolCallOutcome } from '../../invocation/tool-call-audit';
import { AuditStatus } from './audit-record.entity';
import { AuditOutcome, AuditRecordRepository } from './audit-record.repository';
import { Redactor } from './redaction';
import { DEFAULT_SECRET_KEYS } from './secret-key-names';

/**
 * A call waiting for its client's input keeps its record `input_required` (set by awaitInput, not by a status
 * of the tool_call): one record per call, however many rounds it takes.
 */
const STATUS: Record<ToolCallStatus, AuditStatus> = {
  in_progress: 'started',
  completed: 'success',
  failed: 'error',
  denied: 'denied',
  rate_limited: 'rate_limited',
  cancelled: 'cancelled',
};

/**
 * Writes an audit record for every call of a tool whose audit level is not `none`, refusals
 * included. A call that runs costs one insert (`started`, flushed to disk before the tool is sent the
 * call) and one update (its outcome); the dispatcher awaits both, so the record is committed before the
 * caller gets its answer, and a process killed during the call leaves the `started` row behind. The
 * update does not wait for the disk (see AuditRecordRepository.complete).
 */
@Injectable()
export class AuditTrail extends ToolCallAudit {
  private readonly redactor: Redactor;

  constructor(
    private readonly records: AuditRecordRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super();
    this.redactor = new Redactor([...DEFAULT_SECRET_KEYS, ...config.audit.redact_keys]);
  }

  async record(outcome: ToolCallOutcome): Promise<void> {
    const level = auditLevelOf(outcome);
    if (!level || outcome.toolCall.status === 'in_progress') return;
    await this.records.insert({
      id: newId('audit_'),
      ...this.identityFields(outcome, level),
      ...this.outcomeFields(outcome, level),
    });
  }

  async start(outcome: ToolCallOutcome): Promise<StartedRecord | undefined> {
    const level = auditLevelOf(outcome);
    if (!level) return undefined;
    const id = newId('audit_');
    await this.records.insert({
      id,
      ...this.identityFields(outcome, level),
      status: 'started',
      durationMs: null,
      outputSize: null,
      output: null,
      error: null,
    });
    return id;
  }

  async finish(record: StartedRecord, outcome: ToolCallOutcome): Promise<void> {
    const level = auditLevelOf(outcome);
    if (!level) return;
    await this.records.complete(record, this.outcomeFields(outcome, level));
  }

  async awaitInput(record: StartedRecord, outcome: ToolCallOutcome): Promise<void> {
    if (!auditLevelOf(outcome)) return;
    await this.records.awaitInput(record, outcome.toolCall.duration_ms);
  }

  resume(record: StartedRecord, tenantId: string): Promise<boolean> {
    return this.records.resume(record, tenantId);
  }

  /** Who called what, with which arguments: known before the call runs. */
  private identityFields({ identity, tool, arguments: args, toolCall }: ToolCallOutcome, level: 'basic' | 'full') {
    return {
      createdAt: this.clock.now(),
      tenantId: identity.tenantId,
      agentId: identity.agentProfile ?? null,
      userId: identity.subject,
      toolId: tool.governance?.toolId ?? null,
      toolName: tool.name,
      callId: toolCall.call_id,
      auditLevel: level,
      inputArgs: level === 'full' ? (this.redactor.redact(args ?? null) as object | null) : null,
      responseId: toolCall.response_id,
    };
  }

  /** How the call ended. */
  private outcomeFields({ toolCall, rejection, findings }: ToolCallOutcome, level: 'basic' | 'full'): AuditOutcome {
    const output =
      level === 'full' && toolCall.output !== null && toolCall.output !== undefined
        ? this.truncatedOutput(toolCall.output)
        : undefined;
    return {
      status: rejection ?? STATUS[toolCall.status],
      durationMs: toolCall.duration_ms,
      outputSize: output?.size ?? null,
      output: output?.text ?? null,
      error: toolCall.error ? this.redactor.redactText(`${toolCall.error.code}: ${toolCall.error.message}`) : null,
      injectionSuspected:
        toolCall.metadata?.injection_suspected === true || toolCall.error?.code === 'injection_blocked',
      guardFindings: findings?.length ? findings : null,
    };
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

function auditLevelOf({ tool }: ToolCallOutcome): 'basic' | 'full' | undefined {
  const level = tool.governance?.auditLevel ?? 'basic';
  return level === 'none' ? undefined : level;
}
