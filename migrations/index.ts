import { Foundation1764000000000 } from './1764000000000-foundation';
import { Catalog1764000100000 } from './1764000100000-catalog';
import { AuditAndLimits1764000150000 } from './1764000150000-audit-and-limits';
import { Credentials1764000200000 } from './1764000200000-credentials';
import { FileSearch1764000300000 } from './1764000300000-file-search';
import { McpSources1764000400000 } from './1764000400000-mcp-sources';
import { GatewaySessions1764000500000 } from './1764000500000-gateway-sessions';
import { AuditCallStatuses1764000600000 } from './1764000600000-audit-call-statuses';
import { DropGatewaySessions1764000700000 } from './1764000700000-drop-gateway-sessions';
import { ToolIcons1764000800000 } from './1764000800000-tool-icons';
import { OAuthAuthorizationServer1764000900000 } from './1764000900000-oauth-authorization-server';
import { Responses1764001700000 } from './1764001700000-responses';
import { OutputScan1764001800000 } from './1764001800000-output-scan';
import { IngestionProgress1764001850000 } from './1764001850000-ingestion-progress';
import { OAuthGrantRevocation1764002400000 } from './1764002400000-oauth-grant-revocation';
import { CallGuards1764002500000 } from './1764002500000-call-guards';
import { AuditInputRequired1764002600000 } from './1764002600000-audit-input-required';
import { McpSourceToolNames1764002650000 } from './1764002650000-mcp-source-tool-names';

/** Applied in this order, by the service at start and by `npm run migration:run`. */
export const ALL_MIGRATIONS = [
  Foundation1764000000000,
  Catalog1764000100000,
  AuditAndLimits1764000150000,
  Credentials1764000200000,
  FileSearch1764000300000,
  McpSources1764000400000,
  GatewaySessions1764000500000,
  AuditCallStatuses1764000600000,
  DropGatewaySessions1764000700000,
  ToolIcons1764000800000,
  OAuthAuthorizationServer1764000900000,
  Responses1764001700000,
  OutputScan1764001800000,
  IngestionProgress1764001850000,
  OAuthGrantRevocation1764002400000,
  CallGuards1764002500000,
  AuditInputRequired1764002600000,
  McpSourceToolNames1764002650000,
];
