import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Item } from './response-object';

/**
 * One input or output item of a stored response, in order. Items of server-side tool calls also keep the
 * function name and the output the model saw, so a later `previous_response_id` replays the same conversation.
 */
@Entity({ name: 'response_items' })
export class ResponseItemEntity {
  @PrimaryColumn({ name: 'response_id', type: 'varchar' })
  responseId: string;

  @PrimaryColumn({ type: 'varchar' })
  direction: 'input' | 'output';

  @PrimaryColumn({ type: 'integer' })
  position: number;

  @Column({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'jsonb' })
  item: Item;

  @Column({ name: 'tool_name', type: 'varchar', nullable: true })
  toolName: string | null;

  @Column({ name: 'tool_output', type: 'text', nullable: true })
  toolOutput: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
