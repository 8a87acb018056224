import { MigrationInterface, QueryRunner } from 'typeorm';

const BEFORE = `'success', 'error', 'rate_limited', 'denied', 'cancelled', 'invalid', 'refused', 'started'`;
const AFTER = `${BEFORE}, 'input_required'`;

/**
 * Audit status `input_required`: a call whose MCP 2026-07-28 tool asked for the client's input (elicitation,
 * sampling) and waits for the client's retry, which resumes it on the same record. As in
 * AuditCallStatuses1764000600000, the constraint is added NOT VALID and validated afterwards.
 */
export class AuditInputRequired1764002600000 implements MigrationInterface {
  name = 'AuditInputRequired1764002600000';

  async up(db: QueryRunner): Promise<void> {
    await replaceStatusCheck(db, AFTER);
  }

  async down(db: QueryRunner): Promise<void> {
    // The old set has no word for it: a call still waiting for input never finished.
    await db.query(`UPDATE tool_audit_records SET status = 'cancelled' WHERE status = 'input_required'`);
    await replaceStatusCheck(db, BEFORE);
  }
}

async function replaceStatusCheck(db: QueryRunner, statuses: string): Promise<void> {
  await db.query(`ALTER TABLE tool_audit_records DROP CONSTRAINT tool_audit_records_status_check`);
  await db.query(
    `ALTER TABLE tool_audit_records ADD CONSTRAINT tool_audit_records_status_check CHECK (status IN (${statuses})) NOT VALID`,
  );
  await db.query(`ALTER TABLE tool_audit_records VALIDATE CONSTRAINT tool_audit_records_status_check`);
}
