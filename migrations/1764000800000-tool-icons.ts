import { MigrationInterface, QueryRunner } from 'typeorm';

/** The icons an MCP server lists for a tool, served to MCP clients as they came (after sanitizing). */
export class ToolIcons1764000800000 implements MigrationInterface {
  name = 'ToolIcons1764000800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE tools ADD COLUMN icons jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE tools DROP COLUMN icons`);
  }
}
