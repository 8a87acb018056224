import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { AUDIT_STATUSES } from './audit-record.entity';

const TIME_OR_CURSOR = /^(audit_[A-Za-z0-9]+|\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?)$/;
const TIME_OR_CURSOR_RULE =
  'an ISO 8601 date or time (2026-02-15, 2026-02-15T10:00:00Z), or an audit record id to page from';

export class AuditQueryDto {
  @ApiPropertyOptional({ example: 'acme', description: 'Admins only; members always get their own tenant.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  tenant_id?: string;

  @ApiPropertyOptional({ example: 'github-list-issues' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  tool_name?: string;

  @ApiPropertyOptional({ example: 'tool_8f3a2b1cQx7LmN2pR4sT6vWy' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  tool_id?: string;

  @ApiPropertyOptional({ enum: AUDIT_STATUSES })
  @IsOptional()
  @IsIn(AUDIT_STATUSES)
  status?: string;

  @ApiPropertyOptional({
    example: 'resp_7fQ2xLmN4pR7sT1vW3yZ5bC8',
    description: 'The calls made for this response (POST /v1/responses, or response_id of /v1/tool_calls).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  response_id?: string;

  @ApiPropertyOptional({
    example: '2026-02-15',
    description: `Records at or after this time, or after this record id (cursor): ${TIME_OR_CURSOR_RULE}.`,
  })
  @IsOptional()
  @Matches(TIME_OR_CURSOR, { message: `after must be ${TIME_OR_CURSOR_RULE}` })
  after?: string;

  @ApiPropertyOptional({
    example: '2026-02-22T00:00:00Z',
    description: `Records before this time, or before this record id (cursor).`,
  })
  @IsOptional()
  @Matches(TIME_OR_CURSOR, { message: `before must be ${TIME_OR_CURSOR_RULE}` })
  before?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

export class AuditRecordDto {
  @ApiProperty({ example: 'audit_9x8w7v6uQx7LmN2pR4sT6vWy' }) id: string;
  @ApiProperty({ example: 'tool_audit_record' }) object: 'tool_audit_record';
  @ApiProperty({ example: '2026-02-22T10:00:00.000Z' }) timestamp: string;
  @ApiProperty({ example: 'acme' }) tenant_id: string;
  @ApiPropertyOptional({ example: 'support', description: 'The agent profile, when one was used.' }) agent_id?: string;
  @ApiPropertyOptional({ example: 'key_4f9Qm2kX8bLr1sVt7WcZ0aHd' }) user_id?: string;
  @ApiProperty({ nullable: true, type: String }) tool_id: string | null;
  @ApiProperty({ example: 'github-list-issues' }) tool_name: string;
  @ApiProperty({ example: 'call_abc123' }) call_id: string;
  @ApiProperty({
    enum: AUDIT_STATUSES,
    description:
      "`started`: the call was sent and its outcome is unknown (the service stopped during the call). `input_required`: the call's MCP 2026-07-28 tool waits for the client's input; the client's retry completes this record.",
  })
  status: string;
  @ApiProperty({ example: 342, nullable: true, type: Number }) duration_ms: number | null;
  @ApiProperty({ enum: ['basic', 'full'] }) audit_level: string;
  @ApiPropertyOptional({ description: 'Full records: the arguments, redacted.' }) input_args?: unknown;
  @ApiPropertyOptional({ description: 'Full records: real size of the output in bytes.' }) output_size?: number;
  @ApiPropertyOptional({ description: 'Full records: the output, redacted and truncated to 10 KB.' }) output?: string;
  @ApiPropertyOptional() error?: string;
  @ApiPropertyOptional({ example: 'resp_123' }) response_id?: string;
  @ApiProperty({
    example: false,
    description: 'The result read like instructions addressed to the model (output scanning flagged or withheld it).',
  })
  injection_suspected: boolean;
  @ApiPropertyOptional({
    description:
      'What the call-time guard found: secrets in arguments or results, policies that matched. Kinds, paths and policy versions only, never the values.',
    example: [
      { check: 'secret_in_arguments', kind: 'aws_access_key', path: 'arguments.body', action: 'blocked' },
      { check: 'policy', kind: 'deny', action: 'blocked', source: 'pol_3kT9v2mQ8xYbN1cR5wZa7LpD@v2' },
    ],
  })
  guard_findings?: object[];
}

export class UsageQueryDto {
  @ApiPropertyOptional({ enum: ['24h', '7d', '30d'], default: '7d' })
  @IsOptional()
  @IsIn(['24h', '7d', '30d'])
  period?: '24h' | '7d' | '30d';
}

export class UsageDto {
  @ApiProperty({ example: 'tool_8f3a2b1c' }) tool_id: string;
  @ApiProperty({ example: '7d' }) period: string;
  @ApiProperty({
    example: 1247,
    description: 'Calls that ran (success, error, cancelled); refusals are not invocations.',
  })
  total_invocations: number;
  @ApiProperty({ example: 8 }) unique_tenants: number;
  @ApiProperty({ example: 0.97 }) success_rate: number;
  @ApiProperty({ example: 342 }) avg_duration_ms: number;
  @ApiProperty({ example: 1850 }) p99_duration_ms: number;
  @ApiProperty({ example: [{ tenant_id: 'acme', invocations: 523, success_rate: 0.98 }] }) by_tenant: {
    tenant_id: string;
    invocations: number;
    success_rate: number;
  }[];
  @ApiProperty({ example: [{ date: '2026-02-15', invocations: 189 }] }) by_day: { date: string; invocations: number }[];
}
