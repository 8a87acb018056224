import { All, Controller, Param, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error';
import { Authenticated, OAuthProtectedResource } from '../auth/auth.decorators';
import { type Identity, RequestContext } from '../tenancy/request-context';
import { ModernGatewayService } from './era-2026/modern-gateway.service';
import { isModernRequest } from './era-2026/protocol';
import { McpGatewayService } from './mcp-gateway.service';
import { profileIdentity } from './profile-identity';

const DESCRIPTION =
  "Point any MCP client here with the same API key or JWT. tools/list is the caller's effective tool set; tools/call runs through authorization, validation, rate limits and audit. Two protocol eras on one endpoint. MCP 2025-11-25 (and 2025-06-18, 2025-03-26): initialize, then tools/list and tools/call; stateless, every POST stands alone, no sessions and no list_changed (clients re-list). MCP 2026-07-28: every request carries io.modelcontextprotocol/protocolVersion in params._meta and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers (a mismatch is 400 with JSON-RPC error -32020, an unknown version 400 with -32022 listing the supported ones); server/discover, tools/list with resultType, ttlMs and cacheScope private, tools/call with progress and (when _meta asks for a log level) notifications/message on its own SSE stream, closing the stream cancels the call, and subscriptions/listen delivers notifications/tools/list_changed when the caller's tool set changes. When an upstream MCP source's tool answers resultType input_required (elicitation, sampling, roots), a 2026-07-28 client gets its inputRequests with a requestState of the gateway's own (sealed, bound to the tenant, principal, profile, tool and arguments, valid gateway.input_request_ttl, default 10 minutes) and retries the same tools/call with inputResponses and that requestState; a tampered or foreign state is refused with -32602. 2025-era clients get a tool error naming what the tool asks for. A caller with more effective tools than gateway.max_listed_tools (default 100) is listed two meta-tools instead: search_tools (query, limit: ranked definitions of the caller's own tools) and call_tool (name, arguments: runs one through the same checks and audit as a direct call). With auth.oauth configured it is also an OAuth 2.1 protected resource: a 401 carries a WWW-Authenticate challenge naming its metadata (/.well-known/oauth-protected-resource/mcp), and a token lacking the scope gets 403 insufficient_scope.";

@ApiTags('MCP gateway')
@Authenticated()
@OAuthProtectedResource()
@ApiBearerAuth()
@ApiForbiddenResponse({
  description:
    'With auth.oauth: the access token lacks the required scope (insufficient_scope). A browser Origin that is neither this host nor listed in gateway.allowed_origins (origin_not_allowed).',
  type: ErrorResponseDto,
})
@ApiResponse({
  status: 405,
  description: 'GET and DELETE: the endpoint is stateless, POST only.',
  type: ErrorResponseDto,
})
@Controller('mcp')
export class McpGatewayController {
  constructor(
    private readonly gateway: McpGatewayService,
    private readonly modern: ModernGatewayService,
    private readonly context: RequestContext,
  ) {}

  /** A request carrying 2026-07-28 `_meta` is served by the modern layer; initialize and its era by the SDK. */
  private serve(identity: Identity, request: Request, response: Response): Promise<void> {
    if (isModernRequest(request.body)) return this.modern.serve(identity, request, response);
    return this.gateway.serve(identity, request, response);
  }

  @All()
  @ApiHeader({ name: 'X-Agent-Profile', required: false, description: 'Agent profile of an API-key caller.' })
  @ApiOperation({ summary: 'MCP server (Streamable HTTP)', description: DESCRIPTION })
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    statelessPostOnly(request);
    await this.serve(this.context.identity, request, response);
  }

  @All('profiles/:agent_profile')
  @ApiParam({
    name: 'agent_profile',
    example: 'devops-agent',
    description: 'The agent profile whose tools to serve: letters, digits, "_", ".", ":" or "-", at most 128.',
  })
  @ApiBadRequestResponse({ description: 'The profile name is not valid (invalid_value).', type: ErrorResponseDto })
  @ApiForbiddenResponse({
    description:
      "The credential carries another agent profile (a JWT claim or X-Agent-Profile) than the path names (agent_profile_mismatch): a profile URL narrows the caller's set, it never switches to another profile's.",
    type: ErrorResponseDto,
  })
  @ApiOperation({
    summary: 'MCP server for one agent profile',
    description:
      "The same MCP server as /mcp, serving the effective tool set of the agent profile in the path (the tools of the bundles assigned to that profile of the caller's tenant), for clients that cannot send X-Agent-Profile. Calls are audited with the profile. With auth.oauth it is part of the /mcp protected resource: its challenge names /mcp's metadata, and tokens carry /mcp as their audience.",
  })
  async handleProfile(
    @Param('agent_profile') agentProfile: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    statelessPostOnly(request);
    await this.serve(profileIdentity(this.context.identity, agentProfile), request, response);
  }
}

function statelessPostOnly(request: Request): void {
  if (request.method === 'POST') return;
  throw new ApiError(
    405,
    'invalid_request_error',
    'This MCP endpoint is stateless: send each JSON-RPC message as a POST',
    'method_not_allowed',
    null,
    { Allow: 'POST' },
  );
}
