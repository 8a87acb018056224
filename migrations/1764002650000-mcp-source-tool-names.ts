import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How an MCP source's tools are named: `<source>-<tool>` (as before) or the server's own names. Those may carry
 * capitals, so tool names become unique ignoring case (every name so far is lowercase): two tools differing only
 * in case would confuse callers and models alike.
 */
export class McpSourceToolNames1764002650000 implements MigrationInterface {
  name = 'McpSourceToolNames1764002650000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE mcp_sources ADD COLUMN tool_names varchar NOT NULL DEFAULT 'prefixed'
         CHECK (tool_names IN ('prefixed', 'upstream'))`,
    );
    await db.query(`CREATE UNIQUE INDEX tools_name_folded ON tools (lower(name))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX tools_name_folded`);
    await db.query(`ALTER TABLE mcp_sources DROP COLUMN tool_names`);
  }
}
