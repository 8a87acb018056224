import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditAndLimits1764000150000 implements MigrationInterface {
  name = 'AuditAndLimits1764000150000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tool_audit_records (
        id varchar PRIMARY KEY,
        "timestamp" timestamptz(3) NOT NULL,
        tenant_id varchar NOT NULL,
        agent_id varchar,
        user_id varchar,
        tool_id varchar,
        tool_name varchar NOT NULL,
        call_id varchar NOT NULL,
        status varchar NOT NULL CHECK (status IN ('success', 'error', 'rate_limited', 'denied', 'cancelled')),
        duration_ms double precision,
        audit_level varchar NOT NULL CHECK (audit_level IN ('basic', 'full')),
        input_args jsonb,
        output_size integer,
        output text,
        error text,
        response_id varchar
      )`);
    await db.query(`CREATE INDEX tool_audit_tenant_time ON tool_audit_records (tenant_id, "timestamp", id)`);
    await db.query(`CREATE INDEX tool_audit_time ON tool_audit_records ("timestamp", id)`);
    await db.query(`CREATE INDEX tool_audit_tool_time ON tool_audit_records (tool_id, "timestamp")`);
    await db.query(`
      CREATE TABLE rate_limit_counters (
        tool_id varchar NOT NULL,
        tenant_id varchar NOT NULL,
        window_name varchar NOT NULL,
        window_start timestamptz(3) NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (tool_id, tenant_id, window_name, window_start)
      )`);
    await db.query(`CREATE INDEX rate_limit_counters_start ON rate_limit_counters (window_start)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE rate_limit_counters`);
    await db.query(`DROP TABLE tool_audit_records`);
  }
}
