import { isS256Challenge, verifierMatches } from './pkce';

describe('PKCE S256', () => {
  // The example of RFC 7636 appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('matches the verifier whose SHA-256 is the challenge', () => {
    expect(isS256Challenge(challenge)).toBe(true);
    expect(verifierMatches(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier, a plain challenge and malformed verifiers', () => {
    expect(verifierMatches(`${verifier.slice(0, -1)}Y`, challenge)).toBe(false);
    expect(verifierMatches(challenge, challenge)).toBe(false);
    expect(isS256Challenge(verifier.slice(0, 40))).toBe(false);
    expect(verifierMatches('short', challenge)).toBe(false);
    expect(verifierMatches('a'.repeat(129), challenge)).toBe(false);
    expect(verifierMatches(`${verifier.slice(0, -1)} `, challenge)).toBe(false);
  });
});
