import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** AES-256-GCM: 32-byte keys, 12-byte random IVs (one per write), 16-byte authentication tags. */
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** Key material with its id. The id is a short hash: it names the key in rows and logs without revealing it. */
export interface EncryptionKey {
  readonly id: string;
  readonly material: Buffer;
}

/** What a credential row stores. None of it reveals the value without the key. */
export interface SealedValue {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
  keyId: string;
}

/** Raised when a sealed value cannot be opened: wrong key, wrong tenant/key binding, or altered bytes. */
export class DecryptionError extends Error {}

export function keyId(material: Buffer): string {
  return createHash('sha256').update('toolgate.credentials.key-id\0').update(material).digest('hex').slice(0, 16);
}

export function encryptionKey(material: Buffer): EncryptionKey {
  if (material.length !== KEY_BYTES) throw new Error(`An encryption key must be ${KEY_BYTES} bytes`);
  return { id: keyId(material), material };
}

/**
 * The additional authenticated data binding a ciphertext to its row: moved to another tenant or another
 * key name, it no longer authenticates. Tenant ids and key names cannot contain NUL, so the encoding is unambiguous.
 */
export function credentialAad(tenantId: string, name: string): Buffer {
  return Buffer.from(`toolgate.credential.v1\0${tenantId}\0${name}`, 'utf8');
}

export function seal(key: EncryptionKey, plaintext: string, aad: Buffer): SealedValue {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key.material, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: key.id };
}

export function open(key: EncryptionKey, sealed: SealedValue, aad: Buffer): string {
  if (sealed.keyId !== key.id) throw new DecryptionError(`The value is sealed with key ${sealed.keyId}, not ${key.id}`);
  if (sealed.iv.length !== IV_BYTES || sealed.authTag.length !== TAG_BYTES) {
    throw new DecryptionError('The stored IV or authentication tag has the wrong length');
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key.material, sealed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    // Node's message ("Unsupported state or unable to authenticate data") says nothing more useful.
    throw new DecryptionError('The value does not authenticate: altered, or bound to another tenant or key name');
  }
}

/** The current key (used for every write) and earlier ones (still read until their rows are re-encrypted). */
export class KeyRing {
  private readonly keys = new Map<string, EncryptionKey>();

  constructor(
    readonly current: EncryptionKey,
    previous: EncryptionKey[] = [],
  ) {
    for (const key of [current, ...previous]) if (!this.keys.has(key.id)) this.keys.set(key.id, key);
  }

  /** Every configured key id, the current one first. */
  get ids(): string[] {
    return [...this.keys.keys()];
  }

  find(id: string): EncryptionKey | undefined {
    return this.keys.get(id);
  }
}
