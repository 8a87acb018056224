import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { RequestContext } from '../../tenancy/request-context';
import { servedMcpToolSchema } from '../mcp-tool-schema';
import type { ToolDefinition } from '../tool-executor';
import { ToolDefinitionListDto, ToolDefinitionsQueryDto } from './tool-calls.dto';
import { ToolDispatcher } from './tool-dispatcher';

@ApiTags('Tool calls')
@Authenticated()
@Controller('v1/tool_definitions')
export class ToolDefinitionsController {
  constructor(
    private readonly dispatcher: ToolDispatcher,
    private readonly context: RequestContext,
  ) {}

  @Get()
  @ApiOperation({
    summary: "The caller's effective tools, ready to hand to a model",
    description: '`format=openai` gives function tools for the Responses API; `format=mcp` gives MCP tool definitions.',
  })
  @ApiOkResponse({ type: ToolDefinitionListDto })
  @ApiErrors(400)
  async list(@Query() query: ToolDefinitionsQueryDto): Promise<ToolDefinitionListDto> {
    const requested = query.tools
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const tools = await this.dispatcher.effectiveTools(this.context.identity, requested);
    const render = query.format === 'mcp' ? asMcpTool : asOpenAiTool;
    return { object: 'list', data: tools.map((tool) => render(tool.definition)) };
  }
}

export function asOpenAiTool(definition: ToolDefinition): Record<string, unknown> {
  return {
    type: 'function',
    name: definition.name,
    description: definition.description,
    parameters: servedMcpToolSchema(definition.parameters) ?? { type: 'object' },
  };
}

/**
 * An MCP tool definition. Schemas are served in MCP's shape (see mcp-tool-schema.ts); an input schema that
 * cannot be is served as a bare object schema (calls are still validated against the stored one), an output
 * schema that cannot be is left out, so that one entry never fails a client's whole tools/list.
 */
export function asMcpTool(definition: ToolDefinition): Record<string, unknown> {
  const declaredOutput = definition.outputSchema ?? definition.returns;
  const outputSchema = declaredOutput && servedMcpToolSchema(declaredOutput);
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: servedMcpToolSchema(definition.parameters) ?? { type: 'object' },
    ...(outputSchema && { outputSchema }),
    ...(definition.annotations && { annotations: definition.annotations }),
    ...(definition.icons?.length && { icons: definition.icons }),
  };
}
