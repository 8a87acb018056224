import type { ToolSourceDescriptor } from '../tool-executor';

/** The values a catalog tool entry's fields may take. */
export const SOURCE_TYPES = ['mcp', 'sandbox', 'function', 'builtin'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const PERMISSIONS = [
  'network_access',
  'network_internal',
  'network_external',
  'filesystem_read',
  'filesystem_write',
  'kubernetes_api',
  'database_access',
  'secret_access',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const SECURITY_STATUSES = ['unreviewed', 'reviewed', 'approved', 'blocked'] as const;
export type SecurityStatus = (typeof SECURITY_STATUSES)[number];

export const AUDIT_LEVELS = ['none', 'basic', 'full'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

/** What happens to an MCP tool result that reads like instructions addressed to the model. */
export const OUTPUT_SCAN_MODES = ['off', 'flag', 'block'] as const;
export type OutputScanMode = (typeof OUTPUT_SCAN_MODES)[number];

/** What happens to a call whose arguments carry a secret (see src/tools/guards). */
export const ARGUMENT_SCAN_MODES = ['off', 'flag', 'block'] as const;
export type ArgumentScanMode = (typeof ARGUMENT_SCAN_MODES)[number];

export const TENANT_ACCESS_MODES = ['all', 'allowlist', 'denylist'] as const;

/** What executors read of a tool's source, and what only registration and discovery use. */
export interface ToolSource extends ToolSourceDescriptor {
  type: SourceType;
  server_url?: string;
}

export interface TenantAccess {
  mode: (typeof TENANT_ACCESS_MODES)[number];
  allowlist?: string[];
  denylist?: string[];
}

export interface RateLimit {
  per_minute?: number;
  per_hour?: number;
  per_day?: number;
}

export interface AutoReviewResult {
  score: number;
  flags: string[];
  suggestions: string[];
}

/**
 * Names of registered tools: 3 to 64 lowercase letters, digits and hyphens, starting and ending with a
 * letter or digit.
 */
export const TOOL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$/;
