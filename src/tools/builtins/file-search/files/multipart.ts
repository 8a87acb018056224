import busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../../common/api-error';

/** Room for the other form fields and the multipart framing beyond the file itself. */
const FORM_OVERHEAD = 1024 * 1024;

export interface IncomingFile {
  stream: Readable;
  filename: string;
  mimeType: string;
}

export interface MultipartOptions<T> {
  maxFileSize: number;
  /** Consumes the file stream to its end (it must, even past maxFileSize) and returns what was stored. */
  store(file: IncomingFile): Promise<T>;
  /** Removes what `store` kept when the upload is refused after all. */
  discard(stored: T): Promise<void>;
}

export interface MultipartForm<T> {
  fields: Record<string, string>;
  file: T;
}

export const tooLarge = (maxFileSize: number) =>
  new ApiError(
    413,
    'invalid_request_error',
    `The file is larger than the ${formatBytes(maxFileSize)} this server accepts (builtins.file_search.max_file_size)`,
    'file_too_large',
    'file',
  );

/**
 * Reads a multipart/form-data upload with busboy, streaming the `file` part into `store` while the other
 * fields are collected. Only one part of the file is ever buffered; an oversized upload answers 413.
 */
export async function readMultipart<T>(request: Request, options: MultipartOptions<T>): Promise<MultipartForm<T>> {
  if (!request.is('multipart/form-data')) {
    throw new ApiError(415, 'invalid_request_error', 'Send the file as multipart/form-data', 'unsupported_media_type');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxFileSize + FORM_OVERHEAD) {
    // Read and drop the body so the connection stays usable and the client sees the answer.
    request.resume();
    throw tooLarge(options.maxFileSize);
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      // busboy counts a file that reaches the limit as truncated: one byte more lets exactly maxFileSize through.
      limits: { fileSize: options.maxFileSize + 1, files: 1, fields: 32, fieldSize: 64 * 1024, parts: 40 },
    });
  } catch (error) {
    request.resume();
    throw ApiError.invalid(`Invalid multipart request: ${(error as Error).message}`, 'file');
  }
  const fields: Record<string, string> = {};
  let stored: Promise<T> | undefined;
  let truncated = false;
  let problem: ApiError | undefined;

  const finished = new Promise<void>((resolve, reject) => {
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || stored) {
        problem ??= ApiError.invalid(`Unexpected file field '${name}'; send one file as 'file'`, name);
        stream.resume();
        return;
      }
      stream.on('limit', () => (truncated = true));
      stored = options.store({ stream, filename: info.filename ?? 'file', mimeType: info.mimeType });
      // Whatever happens to the store, the stream must be drained for the form to finish.
      stored.catch(() => stream.resume());
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) problem ??= ApiError.invalid(`Field '${name}' is too long`, name);
      fields[name] = value;
    });
    parser.on('partsLimit', () => (problem ??= ApiError.invalid('Too many parts in the form')));
    parser.on('filesLimit', () => (problem ??= ApiError.invalid("Send one file as 'file'", 'file')));
    parser.on('fieldsLimit', () => (problem ??= ApiError.invalid('Too many fields in the form')));
    parser.on('error', (error: Error) => reject(ApiError.invalid(`Invalid multipart request: ${error.message}`)));
    parser.on('close', () => resolve());
    request.on('aborted', () => reject(ApiError.invalid('The upload was interrupted')));
  });
  request.pipe(parser);

  try {
    await finished;
  } catch (error) {
    request.unpipe(parser);
    request.resume();
    if (stored) await stored.then(options.discard, () => undefined);
    throw error;
  }
  const file = stored ? await stored : undefined;
  const refusal = truncated
    ? tooLarge(options.maxFileSize)
    : (problem ?? (file === undefined ? missingFile() : undefined));
  if (refusal) {
    if (file !== undefined) await options.discard(file);
    throw refusal;
  }
  return { fields, file: file as T };
}

function missingFile(): ApiError {
  return ApiError.invalid("The form has no file: send it as the field 'file'", 'file', 'missing_required_parameter');
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}
