import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AuditLevel, SecurityStatus } from '../catalog/catalog.types';
import type { ToolNaming } from './mcp-tool-names';

export type McpTransport = 'auto' | 'streamable_http' | 'sse' | 'stdio';

/** How Toolgate authenticates to the server; the secret itself is resolved from `secret_ref` at connect time. */
export interface McpSourceAuth {
  type: 'none' | 'api_key' | 'bearer';
  secret_ref?: string;
  /** Header for api_key auth (default X-API-Key). */
  header?: string;
  /** Each calling tenant's own credential (sent as a bearer token); its tools get `source.credential_key`. */
  credential_key?: string;
}

/** A stdio server, from the config file only. */
export interface McpCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Names of variables copied from the service's environment at spawn time (values are never stored). */
  inherit_env?: string[];
  cwd?: string;
}

@Entity({ name: 'mcp_sources' })
export class McpSourceEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ type: 'varchar' })
  name: string;

  /** `config` sources are trusted (their tools are approved on discovery) and managed in the config file. */
  @Column({ type: 'varchar' })
  origin: 'api' | 'config';

  @Column({ type: 'varchar', nullable: true })
  url: string | null;

  @Column({ type: 'varchar' })
  transport: McpTransport;

  @Column({ type: 'jsonb', nullable: true })
  command: McpCommand | null;

  @Column({ type: 'jsonb', nullable: true })
  auth: McpSourceAuth | null;

  @Column({ name: 'auto_discover', type: 'boolean' })
  autoDiscover: boolean;

  @Column({
    name: 'refresh_interval_ms',
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  refreshIntervalMs: number;

  @Column({ name: 'default_security_status', type: 'varchar' })
  defaultSecurityStatus: SecurityStatus;

  @Column({ name: 'default_audit_level', type: 'varchar' })
  defaultAuditLevel: AuditLevel;

  /** `upstream` serves the tools under their servers' own names where no other tool holds them (mcp-tool-names.ts). */
  @Column({ name: 'tool_names', type: 'varchar' })
  toolNames: ToolNaming;

  @Column({ name: 'last_discovery_at', type: 'timestamptz', precision: 3, nullable: true })
  lastDiscoveryAt: Date | null;

  @Column({ name: 'last_discovery_status', type: 'varchar', nullable: true })
  lastDiscoveryStatus: 'ok' | 'error' | null;

  @Column({ name: 'last_discovery_error', type: 'text', nullable: true })
  lastDiscoveryError: string | null;

  @Column({ name: 'last_tool_count', type: 'integer', nullable: true })
  lastToolCount: number | null;

  @Column({ name: 'next_refresh_at', type: 'timestamptz', precision: 3, nullable: true })
  nextRefreshAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
