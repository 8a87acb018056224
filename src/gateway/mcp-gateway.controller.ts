import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { Authenticated, OAuthProtectedResource } from '../auth/auth.decorators';
import { RequestContext } from '../tenancy/request-context';
import { McpGatewayService } from './mcp-gateway.service';

const SESSION_HEADER = 'mcp-session-id';

@ApiTags('MCP gateway')
@Authenticated()
@OAuthProtectedResource()
@Controller('mcp')
export class McpGatewayController {
  constructor(
    private readonly gateway: McpGatewayService,
    private readonly context: RequestContext,
  ) {}

  @All()
  @ApiBearerAuth()
  @ApiForbiddenResponse({
    description: 'With auth.oauth: the access token lacks the required scope (insufficient_scope).',
    type: ErrorResponseDto,
  })
  @ApiHeader({ name: 'Mcp-Session-Id', required: false, description: 'The session, after initialize.' })
  @ApiHeader({ name: 'X-Agent-Profile', required: false, description: 'Agent profile of an API-key caller.' })
  @ApiOperation({
    summary: 'MCP server (Streamable HTTP)',
    description:
      "Point any MCP client here with the same API key or JWT. tools/list is the caller's effective tool set; tools/call runs through authorization, validation, rate limits and audit. Sessions work across replicas. With auth.oauth configured it is also an OAuth 2.1 protected resource: a 401 carries a WWW-Authenticate challenge naming its metadata (/.well-known/oauth-protected-resource/mcp), and a token lacking the scope gets 403 insufficient_scope.",
  })
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    const identity = this.context.identity;
    const sessionId = request.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      const session = await this.gateway.find(sessionId, identity);
      if (!session) {
        response.status(404).json(jsonRpcError(-32001, 'Session not found: initialize a new session'));
        return;
      }
      await session.transport.handleRequest(request, response, request.body);
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(request.body)) {
      response
        .status(400)
        .json(jsonRpcError(-32000, 'Bad request: send initialize first, then use its Mcp-Session-Id header'));
      return;
    }
    const session = await this.gateway.open(identity);
    await session.transport.handleRequest(request, response, request.body);
  }
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
