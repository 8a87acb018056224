import { parentPort, workerData } from 'node:worker_threads';
import type { IngestionErrorCode } from '../vector-store-files/vector-store-file.entity';
import { IngestionError } from './ingestion-error';
import type { ParseLimits } from './parse-limits';
import { extractText } from './parsers';

/** What parse-thread.ts hands this thread. */
export interface ParseRequest {
  filename: string;
  bytes: Uint8Array;
  limits: ParseLimits;
}

export type ParseReply = { ok: true; text: string } | { ok: false; code: IngestionErrorCode; message: string };

/**
 * Entry point of a parse thread: extracts one file's text and posts it back. Whatever the parser throws
 * becomes a reply; a file that exhausts the thread's memory or time is handled by the parent.
 */
function main(): void {
  const request = workerData as ParseRequest;
  const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  extractText(request.filename, bytes, request.limits).then(
    (text) => reply({ ok: true, text }),
    (error: unknown) =>
      reply(
        error instanceof IngestionError
          ? { ok: false, code: error.code, message: error.message }
          : // A parser that throws on its own input fails the same way next time: the file is at fault, not the moment.
            { ok: false, code: 'invalid_file', message: `The file cannot be read: ${String(error)}` },
      ),
  );
}

function reply(message: ParseReply): void {
  parentPort!.postMessage(message);
}

main();
