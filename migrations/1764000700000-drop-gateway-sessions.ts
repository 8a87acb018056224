import { MigrationInterface, QueryRunner } from 'typeorm';

/** The MCP gateway is stateless: every request stands alone, so sessions are no longer recorded. */
export class DropGatewaySessions1764000700000 implements MigrationInterface {
  name = 'DropGatewaySessions1764000700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS mcp_gateway_sessions`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mcp_gateway_sessions (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        subject varchar NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_seen_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX mcp_gateway_sessions_seen ON mcp_gateway_sessions (last_seen_at)`);
  }
}
