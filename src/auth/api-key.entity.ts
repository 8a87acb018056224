import { Column, Entity, PrimaryColumn } from 'typeorm';

export type Role = 'admin' | 'member';

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  role: Role;

  /** The first characters of the secret, shown in lists so a key can be recognised. */
  @Column({ type: 'varchar' })
  prefix: string;

  /** SHA-256 of the secret. Secrets are 143-bit random tokens, so a fast hash is enough and allows lookup by hash. */
  @Column({ name: 'secret_hash', type: 'varchar' })
  secretHash: string;

  /** Set on the key created at first start or from ADMIN_API_KEY. */
  @Column({ type: 'boolean', default: false })
  bootstrap: boolean;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', precision: 3, nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
