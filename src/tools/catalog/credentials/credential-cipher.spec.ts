import { randomBytes } from 'node:crypto';
import {
  credentialAad,
  DecryptionError,
  encryptionKey,
  IV_BYTES,
  KeyRing,
  keyId,
  open,
  seal,
  TAG_BYTES,
} from './credential-cipher';

const key = encryptionKey(randomBytes(32));
const otherKey = encryptionKey(randomBytes(32));
const aad = credentialAad('acme', 'github_token');
const value = 'ghp_secretValue-ünïcødé';

describe('credential cipher (AES-256-GCM)', () => {
  it('round-trips a value, with a fresh 12-byte IV and a 16-byte tag per write', () => {
    const first = seal(key, value, aad);
    const second = seal(key, value, aad);
    expect(first.iv).toHaveLength(IV_BYTES);
    expect(first.authTag).toHaveLength(TAG_BYTES);
    expect(first.keyId).toBe(key.id);
    expect(first.iv.equals(second.iv)).toBe(false);
    expect(first.ciphertext.equals(second.ciphertext)).toBe(false);
    expect(open(key, first, aad)).toBe(value);
    expect(open(key, second, aad)).toBe(value);
  });

  it('keeps no plaintext in the sealed bytes', () => {
    const sealed = seal(key, value, aad);
    for (const part of [sealed.ciphertext, sealed.iv, sealed.authTag]) {
      expect(part.includes(Buffer.from('ghp_secretValue'))).toBe(false);
    }
  });

  it('detects an altered ciphertext, IV or tag', () => {
    const sealed = seal(key, value, aad);
    const flip = (buffer: Buffer) => {
      const copy = Buffer.from(buffer);
      copy[0] ^= 1;
      return copy;
    };
    expect(() => open(key, { ...sealed, ciphertext: flip(sealed.ciphertext) }, aad)).toThrow(DecryptionError);
    expect(() => open(key, { ...sealed, iv: flip(sealed.iv) }, aad)).toThrow(DecryptionError);
    expect(() => open(key, { ...sealed, authTag: flip(sealed.authTag) }, aad)).toThrow(DecryptionError);
    expect(() => open(key, { ...sealed, authTag: sealed.authTag.subarray(0, 8) }, aad)).toThrow(DecryptionError);
  });

  it('binds the value to its tenant and key name (AAD)', () => {
    const sealed = seal(key, value, aad);
    expect(() => open(key, sealed, credentialAad('globex', 'github_token'))).toThrow(DecryptionError);
    expect(() => open(key, sealed, credentialAad('acme', 'slack_token'))).toThrow(DecryptionError);
    // The encoding is unambiguous: moving characters between tenant and name does not authenticate either.
    expect(() => open(key, sealed, credentialAad('acmegithub', '_token'))).toThrow(DecryptionError);
  });

  it('refuses another key, and the error never contains the value', () => {
    const sealed = seal(key, value, aad);
    let error: unknown;
    try {
      open({ ...otherKey, id: key.id }, sealed, aad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DecryptionError);
    expect((error as Error).message).not.toContain('ghp_');
    expect(() => open(otherKey, sealed, aad)).toThrow(DecryptionError);
  });

  it('names keys by a short hash that is stable and differs between keys', () => {
    const material = randomBytes(32);
    expect(keyId(material)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyId(material)).toBe(keyId(Buffer.from(material)));
    expect(keyId(material)).not.toBe(keyId(randomBytes(32)));
    expect(() => encryptionKey(randomBytes(16))).toThrow('32 bytes');
  });

  it('a key ring finds the current and earlier keys by id, current first', () => {
    const ring = new KeyRing(key, [otherKey, key]);
    expect(ring.ids).toEqual([key.id, otherKey.id]);
    expect(ring.find(otherKey.id)).toBe(otherKey);
    expect(ring.find('0000000000000000')).toBeUndefined();
  });
});
