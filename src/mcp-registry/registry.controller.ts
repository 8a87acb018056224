import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { AppConfig } from '../config/app-config';
import { RequestContext } from '../tenancy/request-context';
import { RegistryListQueryDto } from './registry.dto';
import { gatewayRemote, OFFICIAL_META, REVIEW_META, SERVER_SCHEMA_URL } from './registry-format';
import { RegistryService } from './registry.service';

const EXAMPLE_SERVER = {
  server: {
    $schema: SERVER_SCHEMA_URL,
    name: 'local.toolgate/github',
    title: 'github',
    description: '2 governed tool(s) via Toolgate: github-create-issue, github-search',
    version: '2026.2.22',
    remotes: [gatewayRemote('https://toolgate.example.com')],
  },
  _meta: {
    [OFFICIAL_META]: {
      status: 'active',
      publishedAt: '2026-02-01T10:00:00.000Z',
      updatedAt: '2026-02-22T10:00:00.000Z',
      isLatest: true,
    },
    [REVIEW_META]: {
      status: 'approved',
      score: 92,
      tools: [
        { name: 'github-search', security_status: 'approved', score: 92, reviewed_at: '2026-02-22T10:00:00.000Z' },
      ],
    },
  },
};

const SERVER_NAME = {
  name: 'serverName',
  description:
    'Reverse-DNS server name, URL-encoded (`local.toolgate%2Fgithub`): `<gateway.registry_namespace>/<source>`.',
  example: 'local.toolgate%2Fgithub',
};

/** The MCP Registry API (generic registry spec v0.1) over the caller's usable MCP sources. */
@ApiTags('MCP registry')
@Authenticated()
@Controller('v0.1/servers')
export class RegistryController {
  constructor(
    private readonly registry: RegistryService,
    private readonly context: RequestContext,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List the MCP servers the caller may use (MCP Registry format)',
    description:
      "Only sources with at least one tool in the caller's effective set. Each entry's remote is this service's /mcp gateway; `_meta[\"io.toolgate/review\"]` carries the review state and automated score. CORS is enabled.",
  })
  @ApiOkResponse({ schema: { example: { servers: [EXAMPLE_SERVER], metadata: { count: 1 } } } })
  @ApiErrors(400)
  list(@Query() query: RegistryListQueryDto, @Req() request: Request) {
    return this.registry.list(this.context.identity, query, this.baseUrl(request));
  }

  @Get(':serverName/versions')
  @ApiOperation({ summary: 'All versions of one server (Toolgate serves one: the current state)' })
  @ApiParam(SERVER_NAME)
  @ApiOkResponse({ schema: { example: { servers: [EXAMPLE_SERVER], metadata: { count: 1 } } } })
  @ApiErrors(404)
  versions(@Param('serverName') name: string, @Req() request: Request) {
    return this.registry.versions(this.context.identity, name, this.baseUrl(request));
  }

  @Get(':serverName/versions/:version')
  @ApiOperation({ summary: 'One version of a server; `latest` names the current one' })
  @ApiParam(SERVER_NAME)
  @ApiParam({ name: 'version', example: 'latest' })
  @ApiOkResponse({ schema: { example: EXAMPLE_SERVER } })
  @ApiErrors(404)
  version(@Param('serverName') name: string, @Param('version') version: string, @Req() request: Request) {
    return this.registry.version(this.context.identity, name, version, this.baseUrl(request));
  }

  /** Where clients reach this service: configured behind a proxy, else the address this request came to. */
  private baseUrl(request: Request): string {
    const configured = this.config.gateway.public_url;
    if (configured) return configured.replace(/\/+$/, '');
    return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
  }
}
