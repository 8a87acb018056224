import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in authorization server, hardened: a spent authorization code is kept (as `used_at` and the grant it
 * started) so that presenting it again revokes that grant, and a client records its first use so that clients
 * registered and never used can be dropped (auth.oauth.authorization_server.unused_client_ttl).
 */
export class OAuthGrantRevocation1764002400000 implements MigrationInterface {
  name = 'OAuthGrantRevocation1764002400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE oauth_authorization_codes ADD COLUMN used_at timestamptz(3)`);
    await db.query(`ALTER TABLE oauth_authorization_codes ADD COLUMN family_id varchar`);
    await db.query(`ALTER TABLE oauth_clients ADD COLUMN first_used_at timestamptz(3)`);
    await db.query(`CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE first_used_at IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX oauth_clients_unused`);
    await db.query(`ALTER TABLE oauth_clients DROP COLUMN first_used_at`);
    await db.query(`ALTER TABLE oauth_authorization_codes DROP COLUMN family_id`);
    await db.query(`ALTER TABLE oauth_authorization_codes DROP COLUMN used_at`);
  }
}
