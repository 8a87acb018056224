import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiError } from '../../../common/api-error';
import { DATA_DIR, SandboxCollectLimits, SandboxFile } from '../../sandbox/sandbox-limits';
import { FileEntity } from '../file-search/files/file.entity';
import { FilesService } from '../file-search/files/files.service';
import { CodeInterpreterSettings } from './code-interpreter.config';

/** OpenAI's purpose for files a tool produced (what its code interpreter wrote). */
export const OUTPUT_PURPOSE = 'assistants_output';

/** A file of `file_ids` as the code sees it. */
export interface InputFile {
  file: FileEntity;
  /** Its name in DATA_DIR. */
  name: string;
}

/** An output file, as the tool's result and the response's citations name it. */
export interface OutputFile {
  file_id: string;
  filename: string;
  bytes: number;
}

/**
 * code_interpreter's side of the Files API (`builtins.file_search`, which serves /v1/files): the caller's files
 * of `file_ids` checked and read, and the files the code wrote stored as the caller's. Without the Files API
 * (file_search turned off) no file goes in or comes out, and `file_ids` is refused saying why.
 */
@Injectable()
export class CodeInterpreterFiles implements OnModuleInit {
  private files?: FilesService;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly settings: CodeInterpreterSettings,
  ) {}

  onModuleInit(): void {
    // The Files API lives in the file_search module, loaded only when that provider is enabled.
    try {
      this.files = this.moduleRef.get(FilesService, { strict: false });
    } catch {
      this.files = undefined;
    }
  }

  /** What is read back after a run, or nothing without a Files API to store it in. */
  collectLimits(): SandboxCollectLimits | undefined {
    if (!this.files) return undefined;
    return {
      maxFiles: this.settings.maxOutputFiles,
      maxFileBytes: this.settings.maxOutputFileBytes,
      maxTotalBytes: this.settings.maxOutputBytes,
    };
  }

  /**
   * The tenant's files of `ids` with the names they get in DATA_DIR, or an ApiError (400) naming the first id
   * that is not the tenant's (or does not exist) and the param it came in, `param[index]`.
   */
  async check(tenantId: string, ids: string[], param: string): Promise<InputFile[]> {
    if (ids.length === 0) return [];
    const files = this.files;
    if (!files) {
      throw ApiError.invalid(
        'file_ids needs the Files API, which is turned off here (builtins.file_search.enabled)',
        param,
        'files_unavailable',
      );
    }
    const found: FileEntity[] = [];
    for (const [index, id] of ids.entries()) {
      if (found.some((file) => file.id === id)) continue;
      const file = await files.find(tenantId, id).catch(() => undefined);
      if (!file) throw ApiError.invalid(`No file found with id '${id}'`, `${param}[${index}]`, 'file_not_found');
      found.push(file);
    }
    const total = found.reduce((sum, file) => sum + file.bytes, 0);
    if (total > this.settings.maxInputBytes) {
      throw ApiError.invalid(
        `The files of file_ids hold ${total} bytes, more than builtins.code_interpreter.files.max_input_bytes ` +
          `(${this.settings.maxInputBytes})`,
        param,
        'files_too_large',
      );
    }
    return namesFor(found);
  }

  /** The bytes of checked files, to put in a sandbox. */
  async read(inputs: InputFile[]): Promise<SandboxFile[]> {
    const read: SandboxFile[] = [];
    for (const { file, name } of inputs) read.push({ name, content: await this.files!.readAll(file) });
    return read;
  }

  /** Stores what the code wrote as the tenant's files (purpose `assistants_output`). */
  async save(tenantId: string, written: SandboxFile[]): Promise<OutputFile[]> {
    const saved: OutputFile[] = [];
    for (const { name, content } of written) {
      const file = await this.files!.createFrom(tenantId, name, content, OUTPUT_PURPOSE);
      saved.push({ file_id: file.id, filename: file.filename, bytes: file.bytes });
    }
    return saved;
  }
}

/**
 * Each file under its own name in DATA_DIR, as OpenAI puts them; a name that is not one plain path component,
 * or that two files share, is prefixed with the file's id.
 */
function namesFor(files: FileEntity[]): InputFile[] {
  const taken = new Set<string>();
  return files.map((file) => {
    const plain = isPlainName(file.filename) && !taken.has(file.filename);
    const name = plain ? file.filename : `${file.id}-${isPlainName(file.filename) ? file.filename : 'file'}`;
    taken.add(name);
    return { file, name };
  });
}

function isPlainName(name: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  return name !== '.' && name !== '..' && name.length > 0 && !/[/\\\u0000-\u001f\u007f\ufffd]/.test(name);
}

/** Where a file of DATA_DIR is, for the model. */
export function sandboxPath(name: string): string {
  return `${DATA_DIR}/${name}`;
}
