import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error';
import { Authenticated, OAuthProtectedResource } from '../auth/auth.decorators';
import { RequestContext } from '../tenancy/request-context';
import { McpGatewayService } from './mcp-gateway.service';

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
  @ApiForbiddenResponse({
    description:
      'A browser Origin that is neither this host nor listed in gateway.allowed_origins (origin_not_allowed).',
    type: ErrorResponseDto,
  })
  @ApiResponse({
    status: 405,
    description: 'GET and DELETE: the endpoint is stateless, POST only.',
    type: ErrorResponseDto,
  })
  @ApiHeader({ name: 'X-Agent-Profile', required: false, description: 'Agent profile of an API-key caller.' })
  @ApiOperation({
    summary: 'MCP server (Streamable HTTP)',
    description:
      "Point any MCP client here with the same API key or JWT. tools/list is the caller's effective tool set; tools/call runs through authorization, validation, rate limits and audit. Stateless: every POST stands alone, so any replica answers it; there are no sessions and no server-pushed list_changed (clients re-list). With auth.oauth configured it is also an OAuth 2.1 protected resource: a 401 carries a WWW-Authenticate challenge naming its metadata (/.well-known/oauth-protected-resource/mcp), and a token lacking the scope gets 403 insufficient_scope.",
  })
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    if (request.method !== 'POST') {
      throw new ApiError(
        405,
        'invalid_request_error',
        'This MCP endpoint is stateless: send each JSON-RPC message as a POST',
        'method_not_allowed',
        null,
        { Allow: 'POST' },
      );
    }
    await this.gateway.serve(this.context.identity, request, response);
  }
}
