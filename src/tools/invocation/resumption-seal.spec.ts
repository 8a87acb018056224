import { randomBytes } from 'node:crypto';
import { Clock } from '../../common/clock';
import type { Identity } from '../../tenancy/request-context';
import { encryptionKey, KeyRing } from '../catalog/credentials/credential-cipher';
import type { AppConfig } from '../../config/app-config';
import { ResumptionRefused, ResumptionSeal } from './resumption-seal';

const TTL_MS = 600_000;
const config = { gateway: { input_request_ttl: TTL_MS } } as AppConfig;

const resumption = {
  toolCall: { id: 'call_1', call_id: 'call_1', created_at: 1 },
  auditRecord: 'audit_1',
  elapsedMs: 12,
  rounds: 1,
  requestState: 'upstream secret state',
};
const identity = { tenantId: 'acme', subject: 'key_1', agentProfile: 'support' } as Identity;
const binding = { identity, tool: 'github-greet', arguments: { b: 1, a: [1, 2] } };

class SteppedClock extends Clock {
  private current = Date.parse('2026-08-01T00:00:00Z');
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

describe('ResumptionSeal', () => {
  const clock = new SteppedClock();
  const oldKey = encryptionKey(randomBytes(32));
  const seal = new ResumptionSeal(new KeyRing(encryptionKey(randomBytes(32)), [oldKey]), clock, config);

  it('opens what it sealed for the same caller, tool and arguments (in any key order), hiding the upstream state', () => {
    const state = seal.seal(resumption, binding);
    expect(state).not.toContain('upstream');
    expect(seal.open(state, { ...binding, arguments: { a: [1, 2], b: 1 } })).toEqual(resumption);
  });

  it('still opens a state sealed under a key since rotated out', () => {
    const before = new ResumptionSeal(new KeyRing(oldKey), clock, config).seal(resumption, binding);
    expect(seal.open(before, binding)).toEqual(resumption);
  });

  it.each([
    ['another tenant', { ...binding, identity: { ...identity, tenantId: 'globex' } }],
    ['another principal', { ...binding, identity: { ...identity, subject: 'key_2' } }],
    ['another profile', { ...binding, identity: { ...identity, agentProfile: undefined } }],
    ['another tool', { ...binding, tool: 'github-other' }],
    ['other arguments', { ...binding, arguments: { b: 2, a: [1, 2] } }],
  ])('refuses it for %s', (_case, other) => {
    expect(() => seal.open(seal.seal(resumption, binding), other)).toThrow(ResumptionRefused);
  });

  it('refuses an altered, truncated or foreign state, and an expired one', () => {
    const state = seal.seal(resumption, binding);
    const flipped = state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA');
    for (const bad of [flipped, state.slice(0, -10), 'upstream secret state', 'tgrs1.unknown.AAAA', `${state}.x`])
      expect(() => seal.open(bad, binding)).toThrow(ResumptionRefused);
    clock.advance(TTL_MS - 1);
    expect(seal.open(state, binding)).toEqual(resumption);
    clock.advance(1);
    expect(() => seal.open(state, binding)).toThrow(/expired/);
  });
});
