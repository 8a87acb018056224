import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { IngestionError } from './ingestion-error';
import { describeBytes, ParseLimits } from './parse-limits';
import type { ParseReply, ParseRequest } from './parse.worker';

const MB = 1024 * 1024;

/** The worker module beside this one: compiled .js in production, .ts when running from sources (tests). */
const WORKER_ENTRY = join(__dirname, `parse.worker${extname(__filename)}`);

/**
 * Node cannot load .ts in a worker by itself, so from sources the thread compiles it with @swc/core (a
 * development dependency, never needed from dist) through a require hook before loading the entry.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.compiler) {
  const Module = require('node:module');
  const { readFileSync } = require('node:fs');
  const { transformSync } = require(workerData.compiler);
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      module: { type: 'commonjs' },
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    });
    module._compile(code, filename);
  };
}
require(workerData.entry);
`;

const compiler = WORKER_ENTRY.endsWith('.ts') ? require.resolve('@swc/core') : undefined;

/**
 * Extracts a file's text in a thread of its own, so a hostile document costs that thread and never the
 * process: the thread's heap is capped (resourceLimits), it is terminated after the timeout or when
 * `signal` aborts, and a thread that runs out of memory or dies fails only this file.
 */
export function parseInThread(
  filename: string,
  bytes: Buffer,
  limits: ParseLimits,
  signal?: AbortSignal,
): Promise<string> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const request: ParseRequest = { filename, bytes, limits };
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { ...request, entry: WORKER_ENTRY, compiler },
      resourceLimits: { maxOldGenerationSizeMb: Math.max(16, Math.ceil(limits.memoryLimitBytes / MB)) },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      void worker.terminate();
      outcome();
    };
    const abort = () => settle(() => reject(signal!.reason));
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new IngestionError(
              'file_too_large',
              `Parsing the file took longer than ${formatSeconds(limits.timeoutMs)} ` +
                '(builtins.file_search.parse_timeout)',
            ),
          ),
        ),
      limits.timeoutMs,
    );
    signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (reply: ParseReply) =>
      settle(() => (reply.ok ? resolve(reply.text) : reject(new IngestionError(reply.code, reply.message)))),
    );
    worker.on('error', (error: Error & { code?: string }) => settle(() => reject(threadFailure(error, limits))));
    worker.on('exit', (code) =>
      settle(() =>
        reject(new IngestionError('invalid_file', `Parsing the file stopped unexpectedly (exit code ${code})`)),
      ),
    );
  });
}

function threadFailure(error: Error & { code?: string }, limits: ParseLimits): IngestionError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new IngestionError(
      'file_too_large',
      `Parsing the file needs more than ${describeBytes(limits.memoryLimitBytes)} of memory ` +
        '(builtins.file_search.parse_memory_limit)',
    );
  }
  return new IngestionError('invalid_file', `The file cannot be parsed: ${error.message}`);
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
