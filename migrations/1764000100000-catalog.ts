import { MigrationInterface, QueryRunner } from 'typeorm';

export class Catalog1764000100000 implements MigrationInterface {
  name = 'Catalog1764000100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tools (
        id varchar PRIMARY KEY,
        name varchar NOT NULL UNIQUE,
        description text NOT NULL,
        source jsonb NOT NULL,
        source_type varchar GENERATED ALWAYS AS (source->>'type') STORED,
        schema jsonb NOT NULL,
        output_schema jsonb,
        annotations jsonb,
        permissions text[] NOT NULL DEFAULT '{}',
        security_status varchar NOT NULL CHECK (security_status IN ('unreviewed', 'reviewed', 'approved', 'blocked')),
        tags text[] NOT NULL DEFAULT '{}',
        tenant_access jsonb NOT NULL,
        audit_level varchar NOT NULL CHECK (audit_level IN ('none', 'basic', 'full')),
        rate_limit jsonb,
        owner_tenant_id varchar,
        stale boolean NOT NULL DEFAULT false,
        reviewed_hash varchar,
        pending_change jsonb,
        auto_review jsonb NOT NULL,
        reviewed_by varchar,
        reviewed_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX tools_created ON tools (created_at, id)`);
    await db.query(`CREATE INDEX tools_owner ON tools (owner_tenant_id)`);
    await db.query(`CREATE INDEX tools_tags ON tools USING gin (tags)`);
    await db.query(`
      CREATE TABLE tool_reviews (
        id varchar PRIMARY KEY,
        tool_id varchar NOT NULL REFERENCES tools (id) ON DELETE CASCADE,
        decision varchar NOT NULL,
        from_status varchar NOT NULL,
        notes text,
        reviewer varchar NOT NULL,
        content_hash varchar NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX tool_reviews_tool ON tool_reviews (tool_id, created_at, id)`);
    await db.query(`
      CREATE TABLE bundles (
        id varchar PRIMARY KEY,
        name varchar NOT NULL,
        description text NOT NULL DEFAULT '',
        tool_ids text[] NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX bundles_created ON bundles (created_at, id)`);
    await db.query(`
      CREATE TABLE bundle_assignments (
        bundle_id varchar NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
        tenant_id varchar NOT NULL,
        agent_profile varchar NOT NULL DEFAULT '',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (bundle_id, tenant_id, agent_profile)
      )`);
    await db.query(`CREATE INDEX bundle_assignments_tenant ON bundle_assignments (tenant_id, agent_profile)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE bundle_assignments`);
    await db.query(`DROP TABLE bundles`);
    await db.query(`DROP TABLE tool_reviews`);
    await db.query(`DROP TABLE tools`);
  }
}
