import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { TtlCache } from '../../common/ttl-cache';
import { ChangeEvents } from '../../database/change-events';
import { RefreshTokenRepository } from './refresh-token.repository';

const GRANT_REVOKED = 'oauth.grant_revoked';
/** A grant's state is remembered this long at most; a revocation reaches every replica at once. */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Whether the grant behind an access token (one authorization: its code and every refresh token descended from
 * it) still stands. Checked on every /mcp request, from memory: a revocation (a replayed code or refresh token)
 * is announced through the change events, so the tokens already issued for that grant stop working on every
 * replica at once rather than when they expire.
 */
@Injectable()
export class ActiveGrants {
  private readonly known: TtlCache<string, boolean>;
  /** Bumped by every revocation, so a lookup that raced one does not cache the state from before it. */
  private generation = 0;

  constructor(
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly events: ChangeEvents,
    private readonly clock: Clock,
  ) {
    this.known = new TtlCache(CACHE_TTL_MS, CACHE_MAX_ENTRIES, () => clock.now().getTime());
    events.subscribe(GRANT_REVOKED, (grantId) => {
      this.generation += 1;
      if (typeof grantId === 'string') this.known.set(grantId, false);
      else this.known.clear();
    });
    events.onReset(() => {
      this.generation += 1;
      this.known.clear();
    });
  }

  async isActive(grantId: string): Promise<boolean> {
    const cached = this.known.get(grantId);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const active = await this.refreshTokens.familyLive(grantId, this.clock.now());
    if (generation === this.generation) this.known.set(grantId, active);
    return active;
  }

  /** Ends a grant: its refresh tokens are deleted and its access tokens refused from now on, on every replica. */
  async revoke(grantId: string): Promise<void> {
    await this.refreshTokens.deleteFamily(grantId);
    await this.events.publish(GRANT_REVOKED, grantId);
  }
}
