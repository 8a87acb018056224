import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ingestion progress on each vector store file: the stage its job is at and how far it got (characters and
 * chunks stored), shown while it is in progress and kept afterwards. Null until a worker starts the job.
 */
export class IngestionProgress1764001850000 implements MigrationInterface {
  name = 'IngestionProgress1764001850000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE file_search_vector_store_files ADD COLUMN progress jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE file_search_vector_store_files DROP COLUMN progress`);
  }
}
