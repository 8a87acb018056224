import { parentPort } from 'node:worker_threads';
import type { IngestionErrorCode } from '../vector-store-files/vector-store-file.entity';
import { Chunk, chunkText, tokenizer } from './chunker';
import { buildEmbeddingRequests, EmbeddingRequest, EmbeddingRequestShape } from './embedding-requests';
import { IngestionError } from './ingestion-error';
import type { ParseLimits } from './parse-limits';
import { extractText } from './parsers';

/** One document for the thread: its bytes and how to cut and embed them. */
export interface DocumentRequest {
  type: 'index';
  filename: string;
  bytes: Uint8Array;
  limits: ParseLimits;
  chunking: { size: number; overlap: number };
  /** Absent in full-text mode: no embedding requests are built. */
  embedding?: EmbeddingRequestShape;
  /** Chunks per batch handed back: bounds the memory of each message and of each database write. */
  batchChunks: number;
}

/** The parent's go-ahead for the next batch, once it has stored the last one. */
export interface NextBatch {
  type: 'next';
}

export type DocumentReply =
  | { type: 'ready' }
  | { type: 'parsed'; characters: number }
  | { type: 'batch'; chunks: Chunk[]; requests: EmbeddingRequest[]; charactersDone: number }
  | { type: 'done' }
  | { type: 'failed'; code: IngestionErrorCode; message: string };

/**
 * Entry point of a document thread (document-thread.ts): everything done to an untrusted file's bytes —
 * parsing, chunking, tokenizing, building the embedding requests — happens here, never on the event loop.
 * The tokenizer is loaded once per thread; the thread serves one document after another. Batches of chunks
 * go back one at a time, each after the parent asked for it, so a large document never piles up in memory.
 */
function main(): void {
  const port = parentPort!;
  tokenizer();
  let waiting: (() => void) | undefined;
  port.on('message', (message: DocumentRequest | NextBatch) => {
    if (message.type === 'next') {
      waiting?.();
      return;
    }
    const nextBatch = () => new Promise<void>((resolve) => (waiting = resolve));
    index(message, (reply) => port.postMessage(reply), nextBatch).then(
      () => port.postMessage({ type: 'done' } satisfies DocumentReply),
      (error: unknown) => port.postMessage(failure(error)),
    );
  });
  port.postMessage({ type: 'ready' } satisfies DocumentReply);
}

async function index(
  request: DocumentRequest,
  send: (reply: DocumentReply) => void,
  nextBatch: () => Promise<void>,
): Promise<void> {
  const text = await extractText(
    request.filename,
    Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength),
    request.limits,
  );
  // The bytes are not needed past this point: a large file's memory can go while its text is chunked.
  request.bytes = new Uint8Array(0);
  send({ type: 'parsed', characters: text.length });
  let charactersDone = 0;
  let batch: Chunk[] = [];
  const flush = async () => {
    const requests = request.embedding
      ? buildEmbeddingRequests(
          batch.map((chunk) => chunk.text),
          request.embedding,
        )
      : [];
    const asked = nextBatch();
    send({ type: 'batch', chunks: batch, requests, charactersDone });
    batch = [];
    await asked;
  };
  const progress = (done: number) => (charactersDone = done);
  for (const chunk of chunkText(text, request.chunking.size, request.chunking.overlap, progress)) {
    batch.push(chunk);
    if (batch.length >= request.batchChunks) await flush();
  }
  charactersDone = text.length;
  if (batch.length > 0) await flush();
}

function failure(error: unknown): DocumentReply {
  return error instanceof IngestionError
    ? { type: 'failed', code: error.code, message: error.message }
    : // Code that throws on its own input fails the same way next time: the file is at fault, not the moment.
      { type: 'failed', code: 'invalid_file', message: `The file cannot be read: ${String(error)}` };
}

main();
