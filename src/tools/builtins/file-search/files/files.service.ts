import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError } from '../../../../common/api-error';
import { Clock } from '../../../../common/clock';
import { newId } from '../../../../common/ids';
import { ListPage } from '../../../../common/list.dto';
import { unixSeconds } from '../../../../common/time';
import { FileSearchSettings } from '../file-search.config';
import { FileEntity } from './file.entity';
import { FilePartsStore } from './file-parts.store';
import { FileRepository } from './file.repository';
import { DeletedFileDto, FILE_PURPOSES, FileDto, ListFilesQueryDto } from './files.dto';
import { IncomingFile, readMultipart } from './multipart';

/** An upload that never finished (the process died mid-stream) is swept after this long. */
export const STALE_UPLOAD_MS = 60 * 60 * 1000;

export interface Upload {
  file: FileEntity;
  fields: Record<string, string>;
}

/** The Files API: uploads streamed into the database, tenant-scoped reads and deletes. */
@Injectable()
export class FilesService {
  constructor(
    private readonly files: FileRepository,
    private readonly parts: FilePartsStore,
    private readonly settings: FileSearchSettings,
    private readonly clock: Clock,
  ) {}

  /** POST /v1/files: a multipart form with `file` and `purpose` (and optionally `expires_after`). */
  async create(tenantId: string, request: Request): Promise<FileDto> {
    const { file, fields } = await this.receive(tenantId, request, (fields) => {
      const purpose = fields.purpose;
      if (purpose === undefined) {
        throw ApiError.invalid("'purpose' is required", 'purpose', 'missing_required_parameter');
      }
      if (!(FILE_PURPOSES as readonly string[]).includes(purpose)) {
        throw ApiError.invalid(`purpose must be one of ${FILE_PURPOSES.join(', ')}`, 'purpose');
      }
      fileExpiry(fields);
    });
    const expiresAfter = fileExpiry(fields);
    await this.files.update(file.id, {
      purpose: fields.purpose,
      expiresAt: expiresAfter === undefined ? null : new Date(file.createdAt.getTime() + expiresAfter * 1000),
    });
    return present(await this.files.getById(file.id));
  }

  /**
   * Receives a multipart upload into a new file row. `check` sees the other fields once the form has been
   * read; when it throws, the stored bytes are removed.
   */
  async receive(
    tenantId: string,
    request: Request,
    check: (fields: Record<string, string>) => void,
    purpose = 'assistants',
  ): Promise<Upload> {
    const form = await readMultipart<FileEntity>(request, {
      maxFileSize: this.settings.maxFileSize,
      store: (incoming) => this.store(tenantId, incoming, purpose),
      discard: (file) => this.remove(file.id),
    });
    try {
      check(form.fields);
    } catch (error) {
      await this.remove(form.file.id);
      throw error;
    }
    await this.files.update(form.file.id, { state: 'uploaded', bytes: form.file.bytes });
    form.file.state = 'uploaded';
    return { file: form.file, fields: form.fields };
  }

  /**
   * A file a tool made (code_interpreter's output files, purpose `assistants_output` as OpenAI names them),
   * stored like an upload and owned by the calling tenant.
   */
  async createFrom(tenantId: string, filename: string, content: Buffer, purpose: string): Promise<FileDto> {
    const incoming = { stream: Readable.from([content]), filename, mimeType: 'application/octet-stream' };
    const file = await this.store(tenantId, incoming, purpose);
    await this.files.update(file.id, { state: 'uploaded', bytes: file.bytes });
    return present({ ...file, state: 'uploaded' });
  }

  private async store(tenantId: string, incoming: IncomingFile, purpose: string): Promise<FileEntity> {
    const file: FileEntity = {
      id: newId('file-'),
      tenantId,
      filename: cleanFilename(incoming.filename),
      purpose,
      bytes: 0,
      state: 'uploading',
      expiresAt: null,
      createdAt: this.clock.now(),
    };
    await this.files.insert(file);
    try {
      const { bytes } = await this.parts.write(file.id, incoming.stream, this.settings.maxFileSize);
      file.bytes = bytes;
      return file;
    } catch (error) {
      // Cleanup after the upload failed: the caller gets that error; a row left behind is swept as stale.
      await this.remove(file.id).catch(() => undefined);
      throw error;
    }
  }

  async list(tenantId: string, query: ListFilesQueryDto): Promise<ListPage<FileDto>> {
    const page = await this.files.listVisible(tenantId, query, this.clock.now());
    return { ...page, data: page.data.map(present) };
  }

  async get(tenantId: string, id: string): Promise<FileDto> {
    return present(await this.find(tenantId, id));
  }

  /** The file row, or 404 (also for another tenant's file, an unfinished upload and an expired file). */
  async find(tenantId: string, id: string, param: string | null = null): Promise<FileEntity> {
    const file = await this.files.findVisible(tenantId, id, this.clock.now());
    if (!file) throw ApiError.notFound('file', id, param);
    return file;
  }

  /** Deleting a file also removes it from every vector store (the foreign keys cascade). */
  async delete(tenantId: string, id: string): Promise<DeletedFileDto> {
    await this.find(tenantId, id);
    await this.files.delete(tenantId, id);
    return { id, object: 'file', deleted: true };
  }

  content(fileId: string): AsyncGenerator<Buffer> {
    return this.parts.read(fileId);
  }

  readAll(file: FileEntity): Promise<Buffer> {
    return this.parts.readAll(file.id, file.bytes);
  }

  /** Removes uploads that never finished and files past their expiry. */
  sweep(): Promise<number> {
    const now = this.clock.now();
    return this.files.deleteAbandonedAndExpired(new Date(now.getTime() - STALE_UPLOAD_MS), now);
  }

  private remove(id: string): Promise<void> {
    return this.files.deleteById(id);
  }
}

/** `expires_after[anchor]=created_at`, `expires_after[seconds]=N` (3600..2592000), as OpenAI's SDK sends it. */
function fileExpiry(fields: Record<string, string>): number | undefined {
  const anchor = fields['expires_after[anchor]'];
  const seconds = fields['expires_after[seconds]'];
  if (anchor === undefined && seconds === undefined) return undefined;
  if (anchor !== 'created_at') {
    throw ApiError.invalid("expires_after.anchor must be 'created_at'", 'expires_after.anchor');
  }
  const value = Number(seconds);
  if (!/^\d+$/.test(seconds ?? '') || value < 3600 || value > 2_592_000) {
    throw ApiError.invalid('expires_after.seconds must be an integer from 3600 to 2592000', 'expires_after.seconds');
  }
  return value;
}

function cleanFilename(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u001f]/g, '')
    .trim();
  // 255 characters, never half of one written as a surrogate pair.
  return Array.from(base || 'file')
    .slice(0, 255)
    .join('');
}

export function present(file: FileEntity): FileDto {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: unixSeconds(file.createdAt),
    expires_at: unixSeconds(file.expiresAt),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
  };
}
