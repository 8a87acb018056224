import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1764000000000 implements MigrationInterface {
  name = 'Foundation1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE api_keys (
        id varchar PRIMARY KEY,
        name varchar NOT NULL,
        tenant_id varchar NOT NULL,
        role varchar NOT NULL CHECK (role IN ('admin', 'member')),
        prefix varchar NOT NULL,
        secret_hash varchar NOT NULL UNIQUE,
        bootstrap boolean NOT NULL DEFAULT false,
        expires_at timestamptz(3),
        revoked_at timestamptz(3),
        last_used_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX api_keys_created ON api_keys (created_at, id)`);
    await db.query(`
      CREATE TABLE tenant_settings (
        tenant_id varchar PRIMARY KEY,
        settings jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE tenant_settings`);
    await db.query(`DROP TABLE api_keys`);
  }
}
