import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../common/api-error';
import { randomToken } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { API_KEY_PREFIX } from '../api-key.secret';
import { ApiKeysService } from '../api-keys.service';
import { Public } from '../auth.decorators';
import {
  AuthorizationRequest,
  checkAuthorizationRequest,
  RedirectableError,
  redirectWith,
  UntrustedRequestError,
} from './authorization-request';
import { consentPage, errorPage } from './consent-page';
import { Grants } from './grants';
import { OAuthClients } from './oauth-clients';

const CSRF_COOKIE = 'tg_oauth_csrf';

/**
 * The authorization endpoint (RFC 6749 section 3.1) and its consent page. GET checks the request and shows the
 * page; the form posts back the request with the user's API key and a CSRF token (double-submit: a SameSite=Strict
 * cookie that must equal the form field, which no other site can read or set), and on approval the browser is
 * sent to the client's registered redirect URI with a single-use code. These answer a browser with HTML pages
 * and redirects, never the API's JSON errors.
 */
@Public()
@ApiTags('OAuth authorization server')
@ApiProduces('text/html')
@Controller('authorize')
export class AuthorizationController {
  constructor(
    private readonly clients: OAuthClients,
    private readonly grants: Grants,
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Authorization endpoint: the consent page',
    description:
      'Served when auth.oauth.authorization_server.enabled is true. Query: response_type=code, client_id, ' +
      'redirect_uri, code_challenge, code_challenge_method=S256, resource, state, scope.',
  })
  @ApiResponse({ status: 200, description: 'The consent page, with a CSRF cookie.' })
  @ApiResponse({ status: 303, description: 'An error sent back to the client: its redirect URI with error and state.' })
  @ApiResponse({
    status: 400,
    description: 'An error page: unknown client, unregistered or missing redirect_uri, response_type other than code.',
  })
  async show(@Req() request: Request, @Res() response: Response): Promise<void> {
    const authorization = await this.check(request.query, response);
    if (!authorization) return;
    const csrfToken = randomToken(32);
    response.cookie(CSRF_COOKIE, csrfToken, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.auth.oauth.issuer!.startsWith('https:'),
      path: '/authorize',
      maxAge: 3_600_000,
    });
    this.render(response, 200, authorization, csrfToken);
  }

  @Post()
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Authorization endpoint: the consent form',
    description:
      'The authorization request again, with csrf_token (equal to the cookie set by the page), api_key and ' +
      'decision (approve or deny).',
  })
  @ApiResponse({ status: 303, description: "Back to the client's redirect URI with code and state, or error." })
  @ApiResponse({ status: 401, description: 'The consent page again: the API key was refused.' })
  @ApiResponse({ status: 403, description: 'An error page: the CSRF token does not match its cookie.' })
  async decide(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;
    const authorization = await this.check(form, response);
    if (!authorization) return;
    const csrfToken = typeof form.csrf_token === 'string' ? form.csrf_token : '';
    if (!sameToken(csrfToken, cookieValue(request, CSRF_COOKIE))) {
      this.fail(response, 403, 'The form has expired or was not sent from this page: start the sign-in again');
      return;
    }
    if (form.decision !== 'approve') {
      this.redirect(response, authorization, { error: 'access_denied', error_description: 'The user denied access' });
      return;
    }
    const key = typeof form.api_key === 'string' ? form.api_key.trim() : '';
    let apiKeyId: string;
    try {
      if (!key.startsWith(API_KEY_PREFIX)) throw ApiError.unauthorized('That is not a Toolgate API key (tg_…)');
      apiKeyId = (await this.apiKeys.authenticate(key)).subject;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.render(response, 401, authorization, csrfToken, `${error.message}. Paste an active API key.`);
      return;
    }
    const code = await this.grants.issueCode({
      clientId: authorization.client.clientId,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      resource: authorization.resource,
      scope: authorization.scope,
      apiKeyId,
    });
    this.redirect(response, authorization, { code });
  }

  /** The checked request, or undefined once the error has been answered (a page, or a redirect to the client). */
  private async check(input: object, response: Response): Promise<AuthorizationRequest | undefined> {
    try {
      return await checkAuthorizationRequest(input as Record<string, unknown>, this.clients, this.config);
    } catch (error) {
      if (error instanceof UntrustedRequestError) {
        this.fail(response, 400, error.message);
        return undefined;
      }
      if (error instanceof RedirectableError) {
        this.sendTo(response, error.redirectUri, {
          ...error.error.toBody(),
          state: error.state,
        });
        return undefined;
      }
      throw error;
    }
  }

  private render(
    response: Response,
    status: number,
    authorization: AuthorizationRequest,
    csrfToken: string,
    error?: string,
  ): void {
    const redirect = new URL(authorization.redirectUri);
    // The form's redirect leaves this origin: form-action must allow the client's, or browsers stop it there.
    this.html(response, status, `form-action 'self' ${redirect.origin}`).send(
      consentPage({
        clientName: authorization.client.clientName,
        clientId: authorization.client.clientId,
        redirectHost: redirect.host,
        hidden: authorization.parameters,
        csrfToken,
        error,
      }),
    );
  }

  private fail(response: Response, status: number, message: string): void {
    this.html(response, status, "form-action 'none'").send(errorPage(message));
  }

  private html(response: Response, status: number, formAction: string): Response {
    return response
      .status(status)
      .type('html')
      .set({
        'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
        'X-Frame-Options': 'DENY',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
      });
  }

  private redirect(response: Response, authorization: AuthorizationRequest, parameters: Record<string, string>): void {
    this.sendTo(response, authorization.redirectUri, { ...parameters, state: authorization.state });
  }

  /** To a redirect URI already matched against the client's registered ones; `iss` per RFC 9207. */
  private sendTo(response: Response, redirectUri: string, parameters: Record<string, string | undefined>): void {
    response
      .set('Cache-Control', 'no-store')
      .redirect(303, redirectWith(redirectUri, { ...parameters, iss: this.config.auth.oauth.issuer }));
  }
}

function cookieValue(request: Request, name: string): string {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator !== -1 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return '';
}

function sameToken(a: string, b: string): boolean {
  if (a === '' || b === '') return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
