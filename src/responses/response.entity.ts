import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ResponseObject, ResponseStatus } from './response-object';
import type { ResponseRequest } from './response-request';

/** A stored response: the object as answered, and for background runs the request and their lease. */
@Entity({ name: 'responses' })
export class ResponseEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  status: ResponseStatus;

  @Column({ name: 'previous_response_id', type: 'varchar', nullable: true })
  previousResponseId: string | null;

  @Column({ type: 'boolean' })
  background: boolean;

  /** The response object, output included. */
  @Column({ type: 'jsonb' })
  body: ResponseObject;

  /** A background response's parsed request, so the replica that runs it has all it needs. */
  @Column({ type: 'jsonb', nullable: true })
  request: ResponseRequest | null;

  @Column({ name: 'cancel_requested', type: 'boolean', default: false })
  cancelRequested: boolean;

  @Column({ name: 'lease_owner', type: 'varchar', nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  leaseExpiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
