import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../../common/worker-entry';
import type { Chunk } from './chunker';
import type { DocumentReply, DocumentRequest, NextBatch } from './document.worker';
import type { EmbeddingRequest, EmbeddingRequestShape } from './embedding-requests';
import { IngestionError } from './ingestion-error';
import { describeBytes, ParseLimits } from './parse-limits';

const MB = 1024 * 1024;
/**
 * Heap a thread needs before any document: cl100k's ranks as js-tiktoken holds them (about 75 MB measured).
 * The configured memory limit is what one document's work may use on top of it.
 */
const TOKENIZER_HEAP_MB = 96;
/** Loading the tokenizer is our own code on no input; this only catches a thread that never comes up. */
const STARTUP_TIMEOUT_MS = 120_000;
/** An idle thread is kept this long for the next document, then ended to give its memory back. */
const IDLE_MS = 30_000;

/** A document to index: its bytes, the limits of the work, and how to chunk and embed it. */
export interface DocumentJob {
  filename: string;
  bytes: Buffer;
  limits: ParseLimits;
  chunking: { size: number; overlap: number };
  embedding?: EmbeddingRequestShape;
  batchChunks: number;
}

/** What the thread reports as it goes: the text's length once parsed, then batches of chunks. */
export type DocumentEvent =
  | { type: 'parsed'; characters: number }
  | { type: 'batch'; chunks: Chunk[]; requests: EmbeddingRequest[]; charactersDone: number };

/**
 * The one seam for a document's untrusted bytes: parsing, chunking, tokenizing and building embedding
 * requests run in worker threads (document.worker.ts) with a capped heap (resourceLimits) and a time budget,
 * so a hostile document costs its thread and never the event loop. The budget counts only the thread's own
 * work: it stops while the caller stores a batch, which may rightly wait on the database or the embedding
 * service. A thread that runs out of time or memory, dies, or whose caller gives up (`signal`, or leaving
 * the loop early) is ended and fails only its document; a thread that finishes serves the next document,
 * so the tokenizer is loaded once per thread, not once per file.
 */
export class DocumentThreads {
  private readonly idle: DocumentThread[] = [];

  async *index(job: DocumentJob, signal: AbortSignal): AsyncGenerator<DocumentEvent> {
    signal.throwIfAborted();
    let thread = this.idle.pop();
    // An idle thread only ends by its idle timer, which takes it off the list first; a dead one is never reused.
    while (thread && !thread.alive) thread = this.idle.pop();
    thread ??= await DocumentThread.start(job.limits, signal);
    thread.busy();
    let finished = false;
    try {
      const budget = new Budget(job.limits.timeoutMs);
      const { bytes, ...rest } = job;
      thread.post({ type: 'index', bytes, ...rest } satisfies DocumentRequest, ownMemory(bytes));
      for (;;) {
        const reply = await budget.spend((timeLeftMs) => thread.receive(job.limits, signal, timeLeftMs));
        if (reply.type === 'done') break;
        if (reply.type === 'failed') throw new IngestionError(reply.code, reply.message);
        if (reply.type === 'ready') continue;
        yield reply;
        if (reply.type === 'batch') thread.post({ type: 'next' } satisfies NextBatch);
      }
      finished = true;
    } finally {
      if (finished) {
        thread.rest(() => {
          const position = this.idle.indexOf(thread);
          if (position >= 0) this.idle.splice(position, 1);
        });
        this.idle.push(thread);
      } else {
        thread.end();
      }
    }
  }

  /** Ends the idle threads (a busy one ends with its document). */
  close(): void {
    for (const thread of this.idle.splice(0)) thread.end();
  }
}

/** A thread's replies, one at a time, and how it ended if it did. */
class DocumentThread {
  private readonly replies: DocumentReply[] = [];
  private waiter?: () => void;
  private failure?: Error & { code?: string };
  private exited?: number;
  private idleTimer?: NodeJS.Timeout;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: DocumentReply) => {
      this.replies.push(reply);
      this.wake();
    });
    worker.on('error', (error: Error) => {
      this.failure = error;
      this.wake();
    });
    worker.on('exit', (code) => {
      this.exited = code;
      this.wake();
    });
  }

  /** A new thread, once it has loaded the tokenizer (that load is no document's time). */
  static async start(limits: ParseLimits, signal: AbortSignal): Promise<DocumentThread> {
    const thread = new DocumentThread(
      startWorker(__dirname, 'document.worker', __filename, {
        maxOldGenerationSizeMb: TOKENIZER_HEAP_MB + Math.ceil(limits.memoryLimitBytes / MB),
      }),
    );
    try {
      const ready = await withDeadline(thread.next(), STARTUP_TIMEOUT_MS, signal, () => {
        throw new Error(`A document thread did not start within ${STARTUP_TIMEOUT_MS / 1000} s`);
      });
      if (ready.type !== 'ready') throw new Error(`A document thread started with '${ready.type}'`);
    } catch (error) {
      thread.end();
      // Not the document's fault: the job is retried later (ingestion.worker.ts), not failed.
      throw error instanceof IngestionError ? new Error(error.message) : error;
    }
    return thread;
  }

  get alive(): boolean {
    return this.failure === undefined && this.exited === undefined;
  }

  post(message: DocumentRequest | NextBatch, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** The next reply within the time left; a thread that stopped or broke a limit fails the document. */
  async receive(limits: ParseLimits, signal: AbortSignal, timeLeftMs = limits.timeoutMs): Promise<DocumentReply> {
    return withDeadline(this.next(limits), timeLeftMs, signal, () => {
      throw new IngestionError(
        'file_too_large',
        `Processing the file took longer than ${formatSeconds(limits.timeoutMs)} ` +
          '(builtins.file_search.parse_timeout)',
      );
    });
  }

  busy(): void {
    clearTimeout(this.idleTimer);
    this.worker.ref();
  }

  /** Idle: does not keep the process alive, and ends after IDLE_MS unless used again. */
  rest(onEnd: () => void): void {
    this.worker.unref();
    this.idleTimer = setTimeout(() => {
      onEnd();
      this.end();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  end(): void {
    clearTimeout(this.idleTimer);
    void this.worker.terminate();
  }

  private async next(limits?: ParseLimits): Promise<DocumentReply> {
    while (this.replies.length === 0) {
      if (this.failure) throw threadFailure(this.failure, limits);
      if (this.exited !== undefined) {
        throw new IngestionError('invalid_file', `Processing the file stopped unexpectedly (exit code ${this.exited})`);
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    return this.replies.shift()!;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * The memory of a document's bytes, to move to its thread rather than copy, when they are the whole of it (a
 * file read into a buffer of its own, as FileParts.readAll does): the caller's buffer is empty afterwards, and a
 * large file is held once, by the thread, instead of twice. A slice of a shared pool is copied.
 */
function ownMemory(bytes: Uint8Array): ArrayBuffer[] {
  const memory = bytes.buffer;
  return memory instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === memory.byteLength
    ? [memory]
    : [];
}

/** Time a document's thread may work, spent only while the thread is working. */
class Budget {
  private spentMs = 0;

  constructor(private readonly totalMs: number) {}

  /** Runs `wait` with what is left, then charges the time it took. */
  async spend<T>(wait: (timeLeftMs: number) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await wait(Math.max(0, this.totalMs - this.spentMs));
    } finally {
      this.spentMs += performance.now() - started;
    }
  }
}

/** `promise`, unless `ms` pass first (then `onTimeout` throws) or `signal` aborts (its reason is thrown). */
function withDeadline<T>(promise: Promise<T>, ms: number, signal: AbortSignal, onTimeout: () => never): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const abort = () => {
      done();
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      done();
      try {
        onTimeout();
      } catch (error) {
        reject(error as Error);
      }
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: Error) => {
        done();
        reject(error);
      },
    );
  });
}

function threadFailure(error: Error & { code?: string }, limits?: ParseLimits): Error {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY' && limits) {
    return new IngestionError(
      'file_too_large',
      `Processing the file needs more than ${describeBytes(limits.memoryLimitBytes)} of memory ` +
        '(builtins.file_search.parse_memory_limit)',
    );
  }
  return limits ? new IngestionError('invalid_file', `The file cannot be processed: ${error.message}`) : error;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
