import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** file_search_file_parts: a file's bytes, one row per part, numbered from 0. */
@Injectable()
export class FilePartRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(fileId: string, seq: number, data: Buffer): Promise<void> {
    await this.dataSource.query('INSERT INTO file_search_file_parts (file_id, seq, data) VALUES ($1, $2, $3)', [
      fileId,
      seq,
      data,
    ]);
  }

  /** The part's bytes, or undefined past the last part. */
  async find(fileId: string, seq: number): Promise<Buffer | undefined> {
    const rows = (await this.dataSource.query(
      'SELECT data FROM file_search_file_parts WHERE file_id = $1 AND seq = $2',
      [fileId, seq],
    )) as { data: Buffer }[];
    return rows[0]?.data;
  }
}
