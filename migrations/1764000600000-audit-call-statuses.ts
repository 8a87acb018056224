import { MigrationInterface, QueryRunner } from 'typeorm';

const BEFORE = `'success', 'error', 'rate_limited', 'denied', 'cancelled'`;
const AFTER = `${BEFORE}, 'invalid', 'refused', 'started'`;

/**
 * Audit statuses for refusals answered as HTTP errors (`invalid` arguments, `refused` function tools) and
 * for calls in flight (`started`, updated when the call ends; left as is when the process died).
 * The new constraint is added NOT VALID and validated afterwards, so the audit table is not locked
 * against writes while its rows are checked.
 */
export class AuditCallStatuses1764000600000 implements MigrationInterface {
  name = 'AuditCallStatuses1764000600000';

  async up(db: QueryRunner): Promise<void> {
    await replaceStatusCheck(db, AFTER);
  }

  async down(db: QueryRunner): Promise<void> {
    // The old set has no word for these: a started call's outcome is unknown, refusals become denials.
    await db.query(`UPDATE tool_audit_records SET status = 'error' WHERE status = 'started'`);
    await db.query(`UPDATE tool_audit_records SET status = 'denied' WHERE status IN ('invalid', 'refused')`);
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
