import busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../../common/api-error';

/** Room for the other form fields and the multipart framing beyond the file itself. */
const FORM_OVERHEAD = 1024 * 1024;
/**
 * After a refusal the rest of the body is read and dropped only this far, and the connection is closed this long
 * after the answer, so the client (still sending) can read the answer first; an endless upload costs no more.
 */
const DRAIN_BYTES = 4 * 1024 * 1024;
const DRAIN_MS = 5000;

export interface IncomingFile {
  stream: Readable;
  filename: string;
  mimeType: string;
}

export interface MultipartOptions<T> {
  maxFileSize: number;
  /**
   * Consumes the file stream to its end and returns what was stored. The stream is destroyed when the file
   * passes maxFileSize: `store` then removes what it wrote and rejects.
   */
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
 * fields are collected. Only one part of the file is ever buffered; an upload answers 413 as soon as it passes
 * the limit, with what was stored of it removed.
 */
export async function readMultipart<T>(request: Request, options: MultipartOptions<T>): Promise<MultipartForm<T>> {
  if (!request.is('multipart/form-data')) {
    throw new ApiError(415, 'invalid_request_error', 'Send the file as multipart/form-data', 'unsupported_media_type');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxFileSize + FORM_OVERHEAD) {
    drainBoundedly(request);
    throw tooLarge(options.maxFileSize);
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      // Clients (browsers, undici's FormData and so the openai SDK) send `filename="..."` as raw UTF-8; busboy's
      // default reads it as Latin-1. An RFC 5987 `filename*=UTF-8''...` names its own charset and wins over it.
      defParamCharset: 'utf8',
      // busboy counts a file that reaches the limit as truncated: one byte more lets exactly maxFileSize through.
      limits: { fileSize: options.maxFileSize + 1, files: 1, fields: 32, fieldSize: 64 * 1024, parts: 40 },
    });
  } catch (error) {
    drainBoundedly(request);
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
      // Past the limit nothing more is read: the answer is 413 now, not when the client stops sending.
      stream.on('limit', () => {
        truncated = true;
        stream.destroy();
        reject(tooLarge(options.maxFileSize));
      });
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
    parser.destroy();
    drainBoundedly(request);
    // `store` removes its own partial file when its stream is cut short; a finished one is discarded here.
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

/**
 * Deals with the rest of a refused request's body. Until the answer is written nothing more is read (the
 * client is held back by TCP); then the rest is read and dropped up to DRAIN_BYTES, and the connection is closed
 * DRAIN_MS after the answer, so the client can read the answer while still sending. Past DRAIN_BYTES reading stops
 * rather than the connection: closing a socket with unread input resets it, and a reset that reaches a busy client
 * before it has read the answer loses the answer. A body without end costs no more.
 */
function drainBoundedly(request: Request): void {
  if (request.complete) return;
  request.pause();
  // No `Connection: close`: Node would close the socket as soon as the answer is written, and the reset of
  // a socket with unread input can reach the client before the answer does.
  let started = false;
  const drain = () => {
    if (started) return;
    started = true;
    let drained = 0;
    const timer = setTimeout(() => request.socket.destroy(), DRAIN_MS);
    timer.unref();
    request.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_BYTES) request.pause();
    });
    request.once('end', () => clearTimeout(timer));
    request.once('close', () => clearTimeout(timer));
    request.resume();
  };
  const response = request.res;
  if (!response || response.writableFinished) return drain();
  response.once('finish', drain);
  response.once('close', drain);
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
