import { MigrationInterface, QueryRunner } from 'typeorm';

export class McpSources1764000400000 implements MigrationInterface {
  name = 'McpSources1764000400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mcp_sources (
        id varchar PRIMARY KEY,
        name varchar NOT NULL UNIQUE,
        origin varchar NOT NULL CHECK (origin IN ('api', 'config')),
        url varchar,
        transport varchar NOT NULL CHECK (transport IN ('auto', 'streamable_http', 'sse', 'stdio')),
        command jsonb,
        auth jsonb,
        auto_discover boolean NOT NULL DEFAULT true,
        refresh_interval_ms bigint NOT NULL,
        default_security_status varchar NOT NULL,
        default_audit_level varchar NOT NULL,
        last_discovery_at timestamptz(3),
        last_discovery_status varchar,
        last_discovery_error text,
        last_tool_count integer,
        next_refresh_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX mcp_sources_created ON mcp_sources (created_at, id)`);
    await db.query(`CREATE INDEX tools_mcp_source ON tools ((source->>'server_name')) WHERE source->>'type' = 'mcp'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX tools_mcp_source`);
    await db.query(`DROP TABLE mcp_sources`);
  }
}
