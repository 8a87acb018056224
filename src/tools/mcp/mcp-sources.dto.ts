import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { AUDIT_LEVELS, SECURITY_STATUSES, type AuditLevel, type SecurityStatus } from '../catalog/catalog.types';
import { TOOL_NAMINGS, type ToolNaming } from './mcp-tool-names';

export const SOURCE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const DURATION = /^[1-9][0-9]*(ms|s|m|h|d)$/;
const TOOL_NAMES_DESCRIPTION =
  'prefixed: tools are named `<source>-<tool>`. upstream: each tool keeps its server\'s name (1-64 letters, digits, "_" or "-") ' +
  'unless that name is reserved (search_tools, call_tool, built-in tools) or held by another catalog tool: such a tool ' +
  'stays prefixed and the discovery lists it in `name_conflicts` with the reason. A change renames the tools on the next refresh.';

export class McpAuthDto {
  @ApiProperty({ enum: ['none', 'api_key', 'bearer'], example: 'api_key' })
  @IsIn(['none', 'api_key', 'bearer'])
  type: 'none' | 'api_key' | 'bearer';

  @ApiPropertyOptional({
    example: 'mcp-github-api-key',
    description:
      'Name of the secret: an environment variable (also in UPPER_SNAKE form) or a file in secrets.dir. Never the secret itself.',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,128}$/, { message: 'secret_ref must be 1-128 letters, digits, "_", "." or "-"' })
  secret_ref?: string;

  @ApiPropertyOptional({ example: 'X-API-Key', description: 'Header for api_key auth.' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9-]{1,64}$/, { message: 'header must be an HTTP header name' })
  header?: string;

  @ApiPropertyOptional({
    example: 'github_token',
    description:
      "Key in each calling tenant's credential store, sent as a bearer token, so tenants reach the server with their own tokens.",
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,128}$/, { message: 'credential_key must be 1-128 letters, digits, "_", "." or "-"' })
  credential_key?: string;
}

class McpSourceFieldsDto {
  @ApiPropertyOptional({ type: McpAuthDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => McpAuthDto)
  auth?: McpAuthDto;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  auto_discover?: boolean;

  @ApiPropertyOptional({ example: '1h', default: '1h' })
  @IsOptional()
  @Matches(DURATION, { message: 'refresh_interval must be a duration such as "30m", "1h" or "1d"' })
  refresh_interval?: string;

  @ApiPropertyOptional({ enum: SECURITY_STATUSES, default: 'unreviewed' })
  @IsOptional()
  @IsIn(SECURITY_STATUSES)
  default_security_status?: SecurityStatus;

  @ApiPropertyOptional({ enum: AUDIT_LEVELS, default: 'basic' })
  @IsOptional()
  @IsIn(AUDIT_LEVELS)
  default_audit_level?: AuditLevel;

  @ApiPropertyOptional({
    enum: TOOL_NAMINGS,
    default: 'prefixed',
    example: 'upstream',
    description: TOOL_NAMES_DESCRIPTION,
  })
  @IsOptional()
  @IsIn(TOOL_NAMINGS, { message: `tool_names must be one of: ${TOOL_NAMINGS.join(', ')}` })
  tool_names?: ToolNaming;

  @ApiPropertyOptional({
    enum: ['auto', 'streamable_http', 'sse'],
    default: 'auto',
    description: 'auto tries Streamable HTTP, then legacy SSE.',
  })
  @IsOptional()
  @IsIn(['auto', 'streamable_http', 'sse', 'stdio'])
  transport?: 'auto' | 'streamable_http' | 'sse' | 'stdio';
}

export class CreateMcpSourceDto extends McpSourceFieldsDto {
  @ApiProperty({ example: 'github-mcp' })
  @Matches(SOURCE_NAME, { message: 'name must be lowercase letters, digits and "-" (at most 63)' })
  name: string;

  @ApiProperty({ example: 'https://mcp.internal/github' })
  @IsString()
  @MaxLength(2048)
  url: string;
}

export class UpdateMcpSourceDto extends McpSourceFieldsDto {
  @ApiPropertyOptional({ example: 'https://mcp.internal/github' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;
}

export class McpSourceDto {
  @ApiProperty({ example: 'mcpsrc_Vb2Kx9...' }) id: string;
  @ApiProperty({ example: 'mcp_source' }) object: 'mcp_source';
  @ApiProperty({ example: 'github-mcp' }) name: string;
  @ApiProperty({ enum: ['api', 'config'], description: 'config sources are trusted and managed in the config file.' })
  origin: string;
  @ApiProperty({ nullable: true, type: String }) url: string | null;
  @ApiProperty({ enum: ['auto', 'streamable_http', 'sse', 'stdio'] }) transport: string;
  @ApiProperty({ type: McpAuthDto, nullable: true }) auth: McpAuthDto | null;
  @ApiProperty() auto_discover: boolean;
  @ApiProperty({ example: '1h' }) refresh_interval: string;
  @ApiProperty({ enum: SECURITY_STATUSES }) default_security_status: string;
  @ApiProperty({ enum: AUDIT_LEVELS }) default_audit_level: string;
  @ApiProperty({ enum: TOOL_NAMINGS, example: 'prefixed', description: TOOL_NAMES_DESCRIPTION }) tool_names: string;
  @ApiProperty({ example: { at: '2026-02-22T10:00:00.000Z', status: 'ok', error: null, tool_count: 12 } })
  last_discovery: { at: string | null; status: string | null; error: string | null; tool_count: number | null };
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}
