import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A file batch (OpenAI's `vector_store.files_batch`); its files point at it through batch_id. */
@Entity({ name: 'file_search_file_batches' })
export class FileBatchEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ name: 'vector_store_id', type: 'varchar' })
  vectorStoreId: string;

  @Column({ name: 'cancelled_at', type: 'timestamptz', precision: 3, nullable: true })
  cancelledAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
