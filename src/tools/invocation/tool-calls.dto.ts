import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';

/** Tool arguments arrive as a JSON object or, as models emit them, a JSON string. */
function IsObjectOrString(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isObjectOrString',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' || (typeof value === 'object' && value !== null && !Array.isArray(value)),
        defaultMessage: () => 'arguments must be a JSON object or a string holding one',
      },
    },
    options,
  );
}

export class CreateToolCallDto {
  @ApiProperty({ example: 'web_search', description: "The tool to run, from the caller's effective tool set." })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  name: string;

  @ApiPropertyOptional({
    description: "Arguments: a JSON object, or a string holding one (as in a model's function_call).",
    example: { query: 'pgvector hnsw index', max_results: 3 },
    oneOf: [{ type: 'object' }, { type: 'string' }],
  })
  @IsOptional()
  @IsObjectOrString()
  arguments?: Record<string, unknown> | string;

  @ApiPropertyOptional({ example: 'call_abc123', description: "The model's call id; echoed as call_id." })
  @IsOptional()
  @IsString()
  @Matches(/^[\w.:-]{1,128}$/, { message: 'call_id must be 1-128 letters, digits, "_", ".", ":" or "-"' })
  call_id?: string;

  @ApiPropertyOptional({ example: 'resp_123', description: 'The response this call belongs to, for the audit trail.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  response_id?: string;

  @ApiPropertyOptional({ example: 10000, description: 'Timeout in milliseconds, capped by tools.max_timeout.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  timeout_ms?: number;

  @ApiPropertyOptional({
    default: false,
    description: 'Answer with Server-Sent Events: created, progress..., completed|failed, [DONE].',
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;
}

class ToolCallErrorDto {
  @ApiProperty({ example: 'timeout' })
  code: string;

  @ApiProperty({ example: "Tool 'web_search' did not finish within 30000 ms" })
  message: string;
}

export class ToolCallDto {
  @ApiProperty({ example: 'call_9fQ2xLmN4pR7sT1vW3yZ5bC8' })
  id: string;

  @ApiProperty({ example: 'tool_call' })
  object: 'tool_call';

  @ApiProperty({ example: 'call_abc123' })
  call_id: string;

  @ApiProperty({ example: 'web_search' })
  name: string;

  @ApiProperty({ enum: ['completed', 'failed', 'denied', 'rate_limited', 'cancelled'] })
  status: string;

  @ApiProperty({ example: { results: [], count: 0, backend: 'searxng' }, description: 'What the tool returned.' })
  output: unknown;

  @ApiProperty({ type: ToolCallErrorDto, nullable: true })
  error: ToolCallErrorDto | null;

  @ApiProperty({ example: 12.5, nullable: true, type: Number })
  duration_ms: number | null;

  @ApiProperty({ example: 1764000000 })
  created_at: number;

  @ApiProperty({ example: null, nullable: true, type: String })
  response_id: string | null;
}

export class ToolDefinitionsQueryDto {
  @ApiPropertyOptional({ enum: ['openai', 'mcp'], default: 'openai' })
  @IsOptional()
  @IsIn(['openai', 'mcp'])
  format?: 'openai' | 'mcp';

  @ApiPropertyOptional({
    example: 'web_search,file_search',
    description: 'Narrow to these tool names (comma-separated).',
  })
  @IsOptional()
  @IsString()
  tools?: string;
}

export class ToolDefinitionListDto {
  @ApiProperty({ example: 'list' })
  object: 'list';

  @ApiProperty({
    example: [{ type: 'function', name: 'web_search', description: 'Search the web', parameters: { type: 'object' } }],
    description:
      'OpenAI function tools `{type, name, description, parameters}` or MCP tools `{name, description, inputSchema, outputSchema?, annotations?, icons?}`.',
  })
  data: Record<string, unknown>[];
}
