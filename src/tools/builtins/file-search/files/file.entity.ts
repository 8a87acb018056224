import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `uploading` while the bytes stream in (hidden from every API); `uploaded` once they are all stored. */
export type FileState = 'uploading' | 'uploaded';

/** An uploaded file (OpenAI's `file` object). Its bytes are in file_search_file_parts. */
@Entity({ name: 'file_search_files' })
export class FileEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  filename: string;

  @Column({ type: 'varchar' })
  purpose: string;

  /** bigint comes back from pg as text; files are far below 2^53 bytes. */
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  bytes: number;

  @Column({ type: 'varchar' })
  state: FileState;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
