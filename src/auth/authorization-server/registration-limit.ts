import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig } from '../../config/app-config';
import { RateLimiter } from '../../tools/catalog/rate-limits/rate-limiter';
import { OAuthError } from './oauth-error';

/** The counters' key for registrations; the tool rate limits count under tool ids, which never look like this. */
const REGISTRATION_COUNTER = 'oauth:register';

/**
 * Open registration, rationed per source address (auth.oauth.authorization_server.registration_rate_limit). The
 * counts are the tool rate limiter's fixed windows in the database, so the limit holds exactly across replicas.
 */
@Injectable()
export class RegistrationLimit {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  /** Counts one registration from `address`, or throws 429 when its window is full. */
  async take(address: string | undefined): Promise<void> {
    const limit = this.config.auth.oauth.authorization_server.registration_rate_limit;
    const decision = await this.limiter.consume(REGISTRATION_COUNTER, sourceOf(address), limit);
    if (decision.allowed) return;
    throw new OAuthError(
      'temporarily_unavailable',
      `Too many client registrations from this address: at most ${decision.limit} per ${decision.window}`,
      429,
      { 'Retry-After': String(decision.retryAfterSeconds) },
    );
  }
}

/** The address registrations are counted by: IPv4 as is, IPv6 by its /64 (one host commonly holds a whole /64). */
export function sourceOf(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
