import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SecurityStatus } from './catalog.types';

/** One review decision, kept forever with what the reviewer saw (its content hash). */
@Entity({ name: 'tool_reviews' })
export class ToolReviewEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tool_id', type: 'varchar' })
  toolId: string;

  @Column({ type: 'varchar' })
  decision: SecurityStatus;

  @Column({ name: 'from_status', type: 'varchar' })
  fromStatus: SecurityStatus;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @Column({ type: 'varchar' })
  reviewer: string;

  @Column({ name: 'content_hash', type: 'varchar' })
  contentHash: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
