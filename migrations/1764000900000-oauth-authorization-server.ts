import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in OAuth authorization server (auth.oauth.authorization_server): its signing key, shared by every
 * replica and sealed with the credentials encryption key; registered clients; authorization codes and refresh
 * tokens, stored as SHA-256 hashes so a database dump does not hand out working grants.
 */
export class OAuthAuthorizationServer1764000900000 implements MigrationInterface {
  name = 'OAuthAuthorizationServer1764000900000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE oauth_signing_keys (
        kid varchar PRIMARY KEY,
        algorithm varchar NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_ciphertext bytea NOT NULL,
        private_key_iv bytea NOT NULL CHECK (octet_length(private_key_iv) = 12),
        private_key_auth_tag bytea NOT NULL CHECK (octet_length(private_key_auth_tag) = 16),
        encryption_key_id varchar NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE oauth_clients (
        client_id varchar PRIMARY KEY,
        client_name varchar,
        client_uri varchar,
        redirect_uris jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash varchar PRIMARY KEY,
        client_id varchar NOT NULL,
        redirect_uri varchar NOT NULL,
        code_challenge varchar NOT NULL,
        resource varchar NOT NULL,
        scope varchar NOT NULL,
        api_key_id varchar NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX oauth_authorization_codes_expires_at ON oauth_authorization_codes (expires_at)`);
    await db.query(`
      CREATE TABLE oauth_refresh_tokens (
        token_hash varchar PRIMARY KEY,
        family_id varchar NOT NULL,
        client_id varchar NOT NULL,
        resource varchar NOT NULL,
        scope varchar NOT NULL,
        api_key_id varchar NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        expires_at timestamptz(3) NOT NULL,
        used_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // A refresh token presented twice revokes its whole family (every token descended from one authorization).
    await db.query(`CREATE INDEX oauth_refresh_tokens_family_id ON oauth_refresh_tokens (family_id)`);
    await db.query(`CREATE INDEX oauth_refresh_tokens_expires_at ON oauth_refresh_tokens (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE oauth_refresh_tokens`);
    await db.query(`DROP TABLE oauth_authorization_codes`);
    await db.query(`DROP TABLE oauth_clients`);
    await db.query(`DROP TABLE oauth_signing_keys`);
  }
}
