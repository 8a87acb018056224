/**
 * The official MCP Registry's wire format (generic registry API v0.1): server.json documents wrapped with
 * registry metadata. Field names follow the published schema exactly, since clients parse them as-is.
 */
export const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json';
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
export const REVIEW_META = 'io.toolgate/review';

export interface RemoteHeader {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
}

export interface ServerRemote {
  type: 'streamable-http' | 'sse';
  url: string;
  headers?: RemoteHeader[];
}

/** Every served entry connects to this Toolgate's gateway, never to the source: access stays governed. */
export function gatewayRemote(baseUrl: string): ServerRemote {
  return {
    type: 'streamable-http',
    url: `${baseUrl}/mcp`,
    headers: [
      {
        name: 'Authorization',
        description: 'Bearer <your Toolgate API key or JWT>',
        isRequired: true,
        isSecret: true,
      },
    ],
  };
}

export interface ServerJson {
  $schema: string;
  name: string;
  title?: string;
  description: string;
  version: string;
  remotes: ServerRemote[];
}

export interface ToolReview {
  name: string;
  security_status: string;
  score: number | null;
  reviewed_at: string | null;
}

export interface ServerReviewMeta {
  /** The least advanced review state among the caller's tools of this source. */
  status: string;
  /** The lowest automated-review score among them: a source is as safe as its riskiest tool. */
  score: number | null;
  tools: ToolReview[];
}

export interface ServerResponse {
  server: ServerJson;
  _meta: {
    [OFFICIAL_META]: { status: 'active'; publishedAt: string; updatedAt: string; isLatest: boolean };
    [REVIEW_META]: ServerReviewMeta;
  };
}

export interface ServerListResponse {
  servers: ServerResponse[];
  metadata: { nextCursor?: string; count: number };
}
