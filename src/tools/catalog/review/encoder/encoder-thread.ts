import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../../common/worker-entry';
import type { EncodedTool } from './encoder-features';
import type { EncoderReply, EncoderRequest } from './encoder.worker';

/**
 * The thread's heap. The model's weights live in typed arrays outside it (the thread adds about 130 MB of resident
 * memory, up to 250 MB while it reads the largest definition the caps allow); the heap holds the vocabulary and one
 * tool's work, which the sentence and character caps bound (32 MB loads the model; 64 MB reads the largest tool).
 */
const HEAP_MB = 128;
/** The limits of the thread; the defaults are the service's, a spec may tighten them. */
export interface EncoderThreadLimits {
  heapMb: number;
  toolTimeoutMs: number;
}

/** Loading the model is our own code on no input; this only catches a thread that never comes up. */
const STARTUP_TIMEOUT_MS = 120_000;
/** A tool takes 30 ms to 2 s (32 sentences of 600 characters); one still running after this is given up. */
const TOOL_TIMEOUT_MS = 30_000;
/** An idle thread keeps the model this long for the next tool, then ends to give its memory back. */
const IDLE_MS = 5 * 60_000;

/**
 * The sentence encoder, off the request path: one worker thread (encoder.worker.ts) started on first use, with a
 * capped heap and a time limit per tool, embedding one tool at a time. A tool that crashes the thread, runs it out of
 * memory or out of time fails alone: the thread is ended and the next tool starts a new one.
 */
export class EncoderThread {
  private worker?: Worker;
  private ready?: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;
  private idleTimer?: NodeJS.Timeout;
  private onReply?: (reply: EncoderReply) => void;
  private onFailure?: (error: Error) => void;

  constructor(private readonly limits: EncoderThreadLimits = { heapMb: HEAP_MB, toolTimeoutMs: TOOL_TIMEOUT_MS }) {}

  /** The features of one tool (encoder-features.ts); rejects with the reason when the thread fails on it. */
  features(tool: EncodedTool): Promise<Float32Array> {
    const work = this.queue.then(() => this.embed(tool));
    this.queue = work.catch(() => undefined);
    return work;
  }

  /** Ends the thread (module shutdown). */
  close(): void {
    this.end();
  }

  private async embed(tool: EncodedTool): Promise<Float32Array> {
    clearTimeout(this.idleTimer);
    try {
      await this.start();
      this.worker!.ref();
      const id = ++this.nextId;
      const { toolTimeoutMs } = this.limits;
      const reply = await this.next(toolTimeoutMs, `embedding took longer than ${toolTimeoutMs / 1000} s`, () =>
        this.worker!.postMessage({ id, tool } satisfies EncoderRequest),
      );
      if (reply.type === 'failed') throw new Error(reply.message);
      if (reply.type !== 'features' || reply.id !== id) throw new Error(`the encoder thread answered '${reply.type}'`);
      return reply.features;
    } catch (error) {
      this.end();
      throw error;
    } finally {
      this.rest();
    }
  }

  private start(): Promise<void> {
    if (this.worker && this.ready) return this.ready;
    const worker = startWorker(__dirname, 'encoder.worker', __filename, {
      maxOldGenerationSizeMb: this.limits.heapMb,
    });
    this.worker = worker;
    // A thread ended earlier still reports its exit: only the current thread's events count.
    const current = () => this.worker === worker;
    worker.on('message', (reply: EncoderReply) => current() && this.onReply?.(reply));
    worker.on(
      'error',
      (error: Error & { code?: string }) =>
        current() &&
        this.onFailure?.(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Error(`the encoder thread ran out of memory (${this.limits.heapMb} MB heap)`)
            : new Error(`the encoder thread failed: ${error.message}`),
        ),
    );
    worker.on(
      'exit',
      (code) => current() && this.onFailure?.(new Error(`the encoder thread stopped (exit code ${code})`)),
    );
    this.ready = this.next(
      STARTUP_TIMEOUT_MS,
      `the sentence encoder did not load within ${STARTUP_TIMEOUT_MS / 1000} s`,
    ).then((reply) => {
      if (reply.type !== 'ready') throw new Error(`the encoder thread started with '${reply.type}'`);
    });
    return this.ready;
  }

  /** The thread's next reply (after `send`), or its failure, within `ms`. */
  private next(ms: number, timeoutMessage: string, send?: () => void): Promise<EncoderReply> {
    return new Promise<EncoderReply>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        this.onReply = undefined;
        this.onFailure = undefined;
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(timeoutMessage));
      }, ms);
      this.onReply = (reply) => {
        settle();
        resolve(reply);
      };
      this.onFailure = (error) => {
        settle();
        reject(error);
      };
      send?.();
    });
  }

  /** Idle: does not keep the process alive, and ends after IDLE_MS unless used again. */
  private rest(): void {
    const worker = this.worker;
    if (!worker) return;
    worker.unref();
    this.idleTimer = setTimeout(() => this.end(), IDLE_MS);
    this.idleTimer.unref();
  }

  private end(): void {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.onReply = undefined;
    this.onFailure = undefined;
    void worker?.terminate();
  }
}
