import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'file_search_vector_stores' })
export class VectorStoreEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ type: 'varchar', nullable: true })
  description: string | null;

  @Column({ type: 'jsonb' })
  metadata: Record<string, string>;

  /** `expires_after: {anchor: 'last_active_at', days}`; null when the store never expires. */
  @Column({ name: 'expires_after_days', type: 'integer', nullable: true })
  expiresAfterDays: number | null;

  @Column({ name: 'last_active_at', type: 'timestamptz', precision: 3 })
  lastActiveAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/** When the store expires (null: never), from its last activity. */
export function expiresAt(store: VectorStoreEntity): Date | null {
  if (store.expiresAfterDays === null) return null;
  return new Date(store.lastActiveAt.getTime() + store.expiresAfterDays * 86_400_000);
}

export function isExpired(store: VectorStoreEntity, now: Date): boolean {
  const at = expiresAt(store);
  return at !== null && at.getTime() <= now.getTime();
}
