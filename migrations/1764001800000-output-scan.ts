import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Output scanning: a tool's own mode (null follows `catalog.output_scan`) and, on each audit record, whether
 * the result read like instructions addressed to the model.
 */
export class OutputScan1764001800000 implements MigrationInterface {
  name = 'OutputScan1764001800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE tools ADD COLUMN output_scan varchar`);
    await db.query(
      `ALTER TABLE tools ADD CONSTRAINT tools_output_scan_check CHECK (output_scan IN ('off', 'flag', 'block'))`,
    );
    await db.query(`ALTER TABLE tool_audit_records ADD COLUMN injection_suspected boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE tool_audit_records DROP COLUMN injection_suspected`);
    await db.query(`ALTER TABLE tools DROP COLUMN output_scan`);
  }
}
