import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Call-time guards: a tool's own argument scanning mode (null follows the catalog defaults), what the guard
 * found on each audit record (kinds and paths, never values), and the CEL policies admins attach to a tenant
 * with every revision kept, so an audit record naming `<policy>@v<version>` can be read against its rule.
 */
export class CallGuards1764002500000 implements MigrationInterface {
  name = 'CallGuards1764002500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE tools ADD COLUMN argument_scan varchar`);
    await db.query(
      `ALTER TABLE tools ADD CONSTRAINT tools_argument_scan_check CHECK (argument_scan IN ('off', 'flag', 'block'))`,
    );
    await db.query(`ALTER TABLE tool_audit_records ADD COLUMN guard_findings jsonb`);
    await db.query(`
      CREATE TABLE policies (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        name varchar NOT NULL,
        description text NOT NULL DEFAULT '',
        profile varchar,
        tools text[] NOT NULL DEFAULT '{}',
        condition text NOT NULL,
        effect varchar NOT NULL CHECK (effect IN ('deny', 'flag', 'redact')),
        message text,
        redact_paths text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        version integer NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        UNIQUE (tenant_id, name)
      )`);
    await db.query(`CREATE INDEX policies_tenant_idx ON policies (tenant_id, id)`);
    await db.query(`
      CREATE TABLE policy_revisions (
        policy_id varchar NOT NULL,
        version integer NOT NULL,
        tenant_id varchar NOT NULL,
        action varchar NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
        rule jsonb NOT NULL,
        changed_by varchar NOT NULL,
        changed_at timestamptz(3) NOT NULL,
        PRIMARY KEY (policy_id, version)
      )`);
    await db.query(`CREATE INDEX policy_revisions_tenant_idx ON policy_revisions (tenant_id, policy_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE policy_revisions`);
    await db.query(`DROP TABLE policies`);
    await db.query(`ALTER TABLE tool_audit_records DROP COLUMN guard_findings`);
    await db.query(`ALTER TABLE tools DROP COLUMN argument_scan`);
  }
}
