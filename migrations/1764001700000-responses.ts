import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored responses of /v1/responses and their input and output items. A background response holds a lease
 * (owner and expiry, renewed while it runs) so a replica that dies mid-run leaves a row others can close.
 */
export class Responses1764001700000 implements MigrationInterface {
  name = 'Responses1764001700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE responses (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        status varchar NOT NULL,
        previous_response_id varchar,
        background boolean NOT NULL DEFAULT false,
        body jsonb NOT NULL,
        request jsonb,
        cancel_requested boolean NOT NULL DEFAULT false,
        lease_owner varchar,
        lease_expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await db.query(`CREATE INDEX responses_tenant_idx ON responses (tenant_id, created_at)`);
    await db.query(
      `CREATE INDEX responses_running_idx ON responses (lease_expires_at) WHERE status IN ('queued', 'in_progress')`,
    );
    await db.query(`
      CREATE TABLE response_items (
        response_id varchar NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
        direction varchar NOT NULL,
        position integer NOT NULL,
        id varchar NOT NULL,
        tenant_id varchar NOT NULL,
        item jsonb NOT NULL,
        tool_name varchar,
        tool_output text,
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (response_id, direction, position)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE response_items`);
    await db.query(`DROP TABLE responses`);
  }
}
