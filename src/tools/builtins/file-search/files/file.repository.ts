import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { ListPage } from '../../../../common/list.dto';
import { paginate } from '../../../../common/paginate';
import { FileEntity } from './file.entity';
import { ListFilesQueryDto } from './files.dto';

/** file_search_files: uploaded files' rows (their bytes are in file_search_file_parts). */
@Injectable()
export class FileRepository {
  private readonly files: Repository<FileEntity>;

  constructor(dataSource: DataSource) {
    this.files = dataSource.getRepository(FileEntity);
  }

  async insert(file: FileEntity): Promise<void> {
    await this.files.insert(file);
  }

  async update(id: string, changes: Partial<Pick<FileEntity, 'purpose' | 'expiresAt' | 'state' | 'bytes'>>) {
    await this.files.update({ id }, changes);
  }

  /** The row whatever its tenant and state; throws when there is none. */
  getById(id: string): Promise<FileEntity> {
    return this.files.findOneByOrFail({ id });
  }

  /** The row whatever its tenant and state. */
  findById(id: string): Promise<FileEntity | null> {
    return this.files.findOneBy({ id });
  }

  /** The tenant's file if its upload finished and it has not expired by `now`. */
  findVisible(tenantId: string, id: string, now: Date): Promise<FileEntity | null> {
    return this.visible(tenantId, now).andWhere('file.id = :id', { id }).getOne();
  }

  listVisible(tenantId: string, query: ListFilesQueryDto, now: Date): Promise<ListPage<FileEntity>> {
    const builder = this.visible(tenantId, now);
    if (query.purpose) builder.andWhere('file.purpose = :purpose', { purpose: query.purpose });
    return paginate(builder, query, (file) => file);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.files.delete({ id, tenantId });
  }

  async deleteById(id: string): Promise<void> {
    await this.files.delete({ id });
  }

  /** Deletes uploads started before `staleBefore` that never finished, and files expired by `now`. */
  async deleteAbandonedAndExpired(staleBefore: Date, now: Date): Promise<number> {
    const result = await this.files
      .createQueryBuilder()
      .delete()
      .where("(state = 'uploading' AND created_at < :stale) OR expires_at <= :now", { stale: staleBefore, now })
      .execute();
    return result.affected ?? 0;
  }

  private visible(tenantId: string, now: Date) {
    return this.files
      .createQueryBuilder('file')
      .where('file.tenantId = :tenantId', { tenantId })
      .andWhere("file.state = 'uploaded'")
      .andWhere('(file.expiresAt IS NULL OR file.expiresAt > :now)', { now });
  }
}
