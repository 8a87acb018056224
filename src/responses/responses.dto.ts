import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsOptional, IsString } from 'class-validator';
import { Transform } from 'class-transformer';
import { ListQueryDto } from '../common/list.dto';

/**
 * The body of POST /v1/responses, for the OpenAPI document. The body is checked field by field by
 * parseResponseRequest (response-request.ts), which names the offending field as `param`.
 */
export class CreateResponseDto {
  @ApiProperty({ example: 'gpt-4o-mini', description: 'Mapped to an upstream model by engine.upstream.model.' })
  model: string;

  @ApiPropertyOptional({
    description: 'A string (one user message) or items: message, function_call, function_call_output.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: 'What does our travel policy say about trains?',
  })
  input?: string | Record<string, unknown>[];

  @ApiPropertyOptional({ example: 'Answer from the documents only.', description: 'Sent as the system message.' })
  instructions?: string;

  @ApiPropertyOptional({
    description:
      "`{type:'function', name, parameters}`: run by the client (the response ends with function_call items). " +
      "`{type:'function', name}` without parameters: the catalog tool of that name, run by Toolgate. " +
      "`{type:'file_search', vector_store_ids}`, `{type:'web_search'}`, `{type:'code_interpreter', container:{type:'auto', file_ids?}}` " +
      "(the code_interpreter built-in, when enabled: the files of file_ids, the caller's, are in /mnt/data; the " +
      "response's calls share one sandbox, deleted when it ends; files the code writes to /mnt/data come back as " +
      "Files API files cited by container_file_citation annotations), and `{type:'mcp', server_label, allowed_tools?}` " +
      "naming a registered MCP source (require_approval must be 'never'). Every tool must be in the caller's effective set.",
    example: [
      { type: 'file_search', vector_store_ids: ['vs_abc123'] },
      { type: 'function', name: 'github-list-issues' },
      { type: 'code_interpreter', container: { type: 'auto', file_ids: ['file-abc123'] } },
    ],
    type: 'array',
    items: { type: 'object' },
  })
  tools?: Record<string, unknown>[];

  @ApiPropertyOptional({
    description: "'auto', 'none', 'required' or {type:'function', name}; applies to the first model turn.",
    example: 'auto',
  })
  tool_choice?: unknown;

  @ApiPropertyOptional({ default: true }) parallel_tool_calls?: boolean;
  @ApiPropertyOptional({ example: 5, description: 'Most server-side tool calls in this response.' })
  max_tool_calls?: number;
  @ApiPropertyOptional({ example: 1024 }) max_output_tokens?: number;
  @ApiPropertyOptional({ example: 0.2 }) temperature?: number;
  @ApiPropertyOptional({ example: 1 }) top_p?: number;
  @ApiPropertyOptional({ example: 'resp_7fQ2xLmN4pR7sT1vW3yZ5bC8', description: 'Continue this stored conversation.' })
  previous_response_id?: string;
  @ApiPropertyOptional({ default: true, description: 'Store the response so it can be retrieved and continued.' })
  store?: boolean;
  @ApiPropertyOptional({ default: false, description: 'Answer `queued` at once; poll with GET, stop with /cancel.' })
  background?: boolean;
  @ApiPropertyOptional({ default: false, description: 'Answer with Server-Sent Events (the Responses stream events).' })
  stream?: boolean;
  @ApiPropertyOptional({ example: ['file_search_call.results'] }) include?: string[];
  @ApiPropertyOptional({ example: { ticket: 'OPS-12' } }) metadata?: Record<string, string>;
}

export class ResponseErrorDto {
  @ApiProperty({ example: 'server_error' }) code: string;
  @ApiProperty({ example: 'The upstream model answered HTTP 502' }) message: string;
}

export class ResponseDto {
  @ApiProperty({ example: 'resp_7fQ2xLmN4pR7sT1vW3yZ5bC8' }) id: string;
  @ApiProperty({ example: 'response' }) object: 'response';
  @ApiProperty({ example: 1764000000 }) created_at: number;
  @ApiProperty({ enum: ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete'] }) status: string;
  @ApiProperty({ type: ResponseErrorDto, nullable: true }) error: ResponseErrorDto | null;
  @ApiProperty({ example: null, nullable: true, description: "e.g. {reason: 'max_iterations'}" })
  incomplete_details: Record<string, unknown> | null;
  @ApiProperty({ example: 'gpt-4o-mini' }) model: string;
  @ApiProperty({
    description: 'Items: message, function_call, file_search_call, web_search_call, code_interpreter_call, mcp_call.',
    example: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Trains are allowed.', annotations: [] }],
      },
    ],
    type: 'array',
    items: { type: 'object' },
  })
  output: Record<string, unknown>[];
  @ApiProperty({ nullable: true, type: String }) previous_response_id: string | null;
  @ApiProperty() background: boolean;
  @ApiProperty() store: boolean;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) tools: Record<string, unknown>[];
  @ApiProperty({
    example: {
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 150,
    },
    nullable: true,
  })
  usage: Record<string, unknown> | null;
}

export class DeletedResponseDto {
  @ApiProperty({ example: 'resp_7fQ2xLmN4pR7sT1vW3yZ5bC8' }) id: string;
  @ApiProperty({ example: 'response' }) object: 'response';
  @ApiProperty({ example: true }) deleted: true;
}

export class ResponseItemListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    example: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'Hi' }],
      },
    ],
  })
  data: Record<string, unknown>[];
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
  @ApiProperty() has_more: boolean;
}

const asList = ({ value }: { value: unknown }) => (value === undefined || Array.isArray(value) ? value : [value]);

export class RetrieveResponseQueryDto {
  @ApiPropertyOptional({ example: ['file_search_call.results'], description: 'Show file_search_call results.' })
  @IsOptional()
  @Transform(asList)
  @IsArray()
  @IsString({ each: true })
  include?: string[];
}

export class InputItemsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Accepted for compatibility; input items carry no extra data.' })
  @IsOptional()
  @Transform(asList)
  @IsArray()
  @IsString({ each: true })
  include?: string[];
}
