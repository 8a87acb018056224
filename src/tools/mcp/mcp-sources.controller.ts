import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../../common/api-error';
import { Admin, Authenticated } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ListQueryDto } from '../../common/list.dto';
import { McpDiscoveryService } from './mcp-discovery.service';
import { UpstreamEras } from './era-2026/upstream-eras';
import { McpHealth } from './mcp-health';
import { CreateMcpSourceDto, McpSourceDto, UpdateMcpSourceDto } from './mcp-sources.dto';
import { McpSourcesService, presentSource } from './mcp-sources.service';
import { sourcesFromServerJson } from './server-json-import';

@ApiTags('MCP sources')
@Authenticated()
@Admin()
@Controller('v1/tools/sources/mcp')
export class McpSourcesController {
  constructor(
    private readonly sources: McpSourcesService,
    private readonly discovery: McpDiscoveryService,
    private readonly health: McpHealth,
    private readonly eras: UpstreamEras,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Register an MCP server (admin)',
    description:
      'With auto_discover (default) its tools are discovered at once and become catalog entries with the default status. URLs pass the SSRF policy.',
  })
  @ApiCreatedResponse({ type: McpSourceDto })
  @ApiErrors(400, 409)
  async create(@Body() body: CreateMcpSourceDto) {
    const source = await this.sources.create(body);
    const discovery = source.autoDiscover ? await this.discovery.discover(source) : undefined;
    return { ...presentSource(await this.sources.get(source.name)), ...(discovery && { discovery }) };
  }

  @Post('import')
  @ApiOperation({
    summary: 'Import a server.json document (MCP Registry format) as sources (admin)',
    description:
      'Each `remotes` entry (`streamable-http` or `sse`) becomes a source named after the last part of the server name (`io.example/weather` -> `weather`, then `weather-1`, `weather-2` when there are several), registered and discovered like POST /v1/tools/sources/mcp. Package entries (local stdio processes) are refused: stdio servers come only from the config file. The whole document is checked before anything is created.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      example: {
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
        name: 'io.example/weather',
        description: 'Weather forecasts',
        version: '1.2.0',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/weather' }],
      },
    },
  })
  @ApiCreatedResponse({ description: '`{object: "list", data: [source with its discovery]}`' })
  @ApiErrors(400, 409)
  async import(@Body() document: unknown) {
    const inputs = sourcesFromServerJson(document);
    for (const [index, input] of inputs.entries()) {
      if (await this.sources.byName(input.name))
        throw ApiError.conflict(
          `An MCP source named '${input.name}' already exists`,
          'name_taken',
          `remotes[${index}]`,
        );
      await this.sources.checkUrl(input.url).catch((error: unknown) => {
        throw error instanceof ApiError ? atParam(error, `remotes[${index}].url`) : error;
      });
    }
    const data = [];
    for (const input of inputs) {
      const source = await this.sources.create(input);
      const discovery = await this.discovery.discover(source);
      data.push({ ...presentSource(await this.sources.get(source.name)), discovery });
    }
    return { object: 'list', data };
  }

  @Get()
  @ApiOperation({ summary: 'List MCP sources (admin)' })
  @ApiErrors(400)
  list(@Query() query: ListQueryDto) {
    return this.sources.list(query);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Get an MCP source (admin)' })
  @ApiOkResponse({ type: McpSourceDto })
  @ApiErrors(404)
  async get(@Param('name') name: string): Promise<McpSourceDto> {
    return presentSource(await this.sources.get(name));
  }

  @Put(':name')
  @ApiOperation({
    summary: 'Update an API-registered MCP source (admin); config-file sources answer 409',
    description: "A changed auth (credential_key) or url applies to the source's tools at once.",
  })
  @ApiOkResponse({ type: McpSourceDto })
  @ApiErrors(400, 404, 409)
  async update(@Param('name') name: string, @Body() body: UpdateMcpSourceDto): Promise<McpSourceDto> {
    return presentSource(await this.sources.update(name, body));
  }

  @Delete(':name')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove an MCP source (admin); its tools become stale, not deleted' })
  @ApiErrors(404, 409)
  remove(@Param('name') name: string) {
    return this.sources.remove(name);
  }

  @Post(':name/refresh')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Discover the source now (admin): added, changed, stale, revived and rejected tools, renamed entries, and name_conflicts (tool_names: upstream)',
  })
  @ApiErrors(404)
  async refresh(@Param('name') name: string) {
    return this.discovery.discover(await this.sources.get(name));
  }

  @Get(':name/health')
  @ApiOperation({
    summary:
      'Source health (admin): last discovery, recent execution success rate and latency (p50/p95), and the protocol era it is spoken to in',
    description:
      'protocol_era: "modern" when the server answered server/discover with 2026-07-28 and is spoken to in that revision, "legacy" when it is spoken to through the MCP SDK (2025-11-25 and earlier; always for stdio and SSE sources), null while this replica has not asked it yet.',
  })
  @ApiErrors(404)
  async sourceHealth(@Param('name') name: string) {
    const source = await this.sources.get(name);
    const execution = this.health.execution(name);
    const discoveryOk = source.lastDiscoveryStatus !== 'error';
    const healthy = discoveryOk && (execution.success_rate === null || execution.success_rate >= 0.5);
    return {
      object: 'mcp_source.health',
      source: name,
      status: healthy ? 'healthy' : 'unhealthy',
      discovery: presentSource(source).last_discovery,
      execution,
      // Learnt per replica from the server itself, so unknown (null) until this replica has asked.
      protocol_era: this.eras.known(source) ?? null,
    };
  }
}

/** The same refusal, naming the field of the imported document it came from. */
function atParam(error: ApiError, param: string): ApiError {
  return new ApiError(error.status, error.type, error.message, error.code, param, error.headers);
}
