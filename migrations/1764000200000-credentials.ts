import { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-tenant credentials, encrypted at rest (see src/tools/catalog/credentials). */
export class Credentials1764000200000 implements MigrationInterface {
  name = 'Credentials1764000200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tenant_credentials (
        tenant_id varchar NOT NULL,
        key varchar NOT NULL,
        ciphertext bytea NOT NULL,
        iv bytea NOT NULL CHECK (octet_length(iv) = 12),
        auth_tag bytea NOT NULL CHECK (octet_length(auth_tag) = 16),
        key_id varchar NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, key)
      )`);
    // Rotation looks for rows sealed with a key other than the current one.
    await db.query(`CREATE INDEX tenant_credentials_key_id ON tenant_credentials (key_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE tenant_credentials`);
  }
}
