import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { ListOf, ListQueryDto } from '../../../common/list.dto';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../../../tenancy/tenant-id';
import { POLICY_EFFECTS, PolicyEffect } from './policy.entity';

const TOOL_PATTERN = /^[A-Za-z0-9_*.-]{1,128}$/;
const ARGUMENT_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,15}$/;

const CONDITION_DESCRIPTION =
  'A CEL expression that is true for the calls the effect applies to. Variables: `tool` (name, upstream_name, source, origin, tags, permissions), `arguments` (the parsed arguments), `identity` (tenant, role, profile, subject), `request` (time, calls_last_minute). `hosts(value)` lists every URL host in the strings of a value. Compiled when written: a condition that does not compile, uses `matches()` or nests comprehensions (a cost that could run away) is refused with 400 naming the position.';

class PolicyFieldsDto {
  @ApiPropertyOptional({ example: 'Mail stays inside acme.com' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  description?: string;

  @ApiPropertyOptional({
    nullable: true,
    example: 'support-bot',
    description: 'Only calls made under this agent profile; absent or null: every call of the tenant.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  profile?: string | null;

  @ApiPropertyOptional({
    type: [String],
    example: ['send_email'],
    description:
      'Tool name patterns (`*` matches any run of characters), matched against the catalog name and the name the upstream server knows; absent or empty: every tool.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @Matches(TOOL_PATTERN, { each: true, message: 'tools must be tool names or patterns with *' })
  tools?: string[];

  @ApiPropertyOptional({ example: 'Mail may only go to addresses at acme.com' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  message?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['body', 'headers.authorization'],
    description: '`redact`: argument paths (dot-separated keys) replaced before the tool and the audit trail see them.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(ARGUMENT_PATH, { each: true, message: 'redact_paths must be dot-separated argument keys' })
  redact_paths?: string[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class CreatePolicyDto extends PolicyFieldsDto {
  @ApiProperty({ example: 'acme', description: `The tenant whose calls the policy governs: ${TENANT_ID_RULE}.` })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: `tenant_id must be ${TENANT_ID_RULE}` })
  tenant_id: string;

  @ApiProperty({ example: 'mail-inside-domain', description: 'Unique within the tenant.' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name: string;

  @ApiProperty({ example: '!arguments.to.endsWith("@acme.com")', description: CONDITION_DESCRIPTION })
  @IsString()
  @MinLength(1)
  condition: string;

  @ApiProperty({
    enum: POLICY_EFFECTS,
    example: 'deny',
    description:
      '`deny`: the call is refused with `message`; `flag`: it runs, marked in the audit; `redact`: `redact_paths` are replaced.',
  })
  @IsIn(POLICY_EFFECTS)
  effect: PolicyEffect;
}

export class UpdatePolicyDto extends PolicyFieldsDto {
  @ApiPropertyOptional({ example: 'mail-inside-domain' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ example: '!arguments.to.endsWith("@acme.com")', description: CONDITION_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MinLength(1)
  condition?: string;

  @ApiPropertyOptional({ enum: POLICY_EFFECTS, example: 'deny' })
  @IsOptional()
  @IsIn(POLICY_EFFECTS)
  effect?: PolicyEffect;
}

export class ListPoliciesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'acme', description: 'Only this tenant’s policies.' })
  @IsOptional()
  @Matches(TENANT_ID_PATTERN, { message: `tenant_id must be ${TENANT_ID_RULE}` })
  tenant_id?: string;
}

export class PolicyDto {
  @ApiProperty({ example: 'pol_3kT9v2mQ8xYbN1cR5wZa7LpD' }) id: string;
  @ApiProperty({ example: 'policy' }) object: 'policy';
  @ApiProperty({ example: 'acme' }) tenant_id: string;
  @ApiProperty({ example: 'mail-inside-domain' }) name: string;
  @ApiProperty({ example: 'Mail stays inside acme.com' }) description: string;
  @ApiProperty({ nullable: true, type: String, example: null }) profile: string | null;
  @ApiProperty({ type: [String], example: ['send_email'] }) tools: string[];
  @ApiProperty({ example: '!arguments.to.endsWith("@acme.com")' }) condition: string;
  @ApiProperty({ enum: POLICY_EFFECTS, example: 'deny' }) effect: PolicyEffect;
  @ApiProperty({ nullable: true, type: String, example: 'Mail may only go to addresses at acme.com' })
  message: string | null;
  @ApiProperty({ type: [String], example: [] }) redact_paths: string[];
  @ApiProperty({ example: true }) enabled: boolean;
  @ApiProperty({ example: 2, description: 'Raised by every change; audit records name `<id>@v<version>`.' })
  version: number;
  @ApiProperty({ example: '2026-11-28T04:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-28T04:05:00.000Z' }) updated_at: string;
}

export class PolicyListDto extends ListOf(PolicyDto) {}

export class PolicyRevisionDto {
  @ApiProperty({ example: 'policy.revision' }) object: 'policy.revision';
  @ApiProperty({ example: 'pol_3kT9v2mQ8xYbN1cR5wZa7LpD' }) policy_id: string;
  @ApiProperty({ example: 1 }) version: number;
  @ApiProperty({ enum: ['created', 'updated', 'deleted'], example: 'created' }) action: string;
  @ApiProperty({ description: 'The policy as this version wrote it.', type: PolicyDto }) rule: object;
  @ApiProperty({ example: 'key_8f3a2b1cQx7LmN2pR4sT6vWy', description: 'The admin key or JWT subject.' })
  changed_by: string;
  @ApiProperty({ example: '2026-11-28T04:00:00.000Z' }) changed_at: string;
}

export class PolicyRevisionListDto extends ListOf(PolicyRevisionDto) {}

export class DeletedPolicyDto {
  @ApiProperty({ example: 'pol_3kT9v2mQ8xYbN1cR5wZa7LpD' }) id: string;
  @ApiProperty({ example: 'policy.deleted' }) object: 'policy.deleted';
  @ApiProperty({ example: true }) deleted: true;
}
