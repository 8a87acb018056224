import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. Fixed-length classes, so the test is linear. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A S256 challenge is the base64url SHA-256 of the verifier: 43 characters without padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

/** Whether `verifier` is the one whose S256 challenge was sent with the authorization request. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
