import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One tenant credential, encrypted with AES-256-GCM. The row holds no plaintext: the ciphertext, its IV
 * and tag, and the id of the key that sealed it (a short hash, not the key). Tenant and key name are
 * authenticated with the ciphertext, so a row's bytes cannot be moved to another tenant or name.
 */
@Entity({ name: 'tenant_credentials' })
export class CredentialEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @PrimaryColumn({ name: 'key', type: 'varchar' })
  key: string;

  @Column({ type: 'bytea' })
  ciphertext: Buffer;

  @Column({ type: 'bytea' })
  iv: Buffer;

  @Column({ name: 'auth_tag', type: 'bytea' })
  authTag: Buffer;

  @Column({ name: 'key_id', type: 'varchar' })
  keyId: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
