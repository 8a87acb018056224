import { MigrationInterface, QueryRunner } from 'typeorm';

/** How an MCP source's tools are named: `<source>-<tool>` (as before) or the server's own names. */
export class McpSourceToolNames1764002650000 implements MigrationInterface {
  name = 'McpSourceToolNames1764002650000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE mcp_sources ADD COLUMN tool_names varchar NOT NULL DEFAULT 'prefixed'
         CHECK (tool_names IN ('prefixed', 'upstream'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE mcp_sources DROP COLUMN tool_names`);
  }
}
