import { isPlainName } from '../local/data-dir';
import type { SandboxCollectLimits, SandboxFile, SandboxOutputFiles, SandboxRunOutcome } from '../sandbox-limits';

/** Above the JSON-escaped stdout (at most 6 bytes per byte, `\u0000`), room for stderr and the other fields. */
const ANSWER_OVERHEAD = 65_536;
const STDERR_KEPT = 4096;
/** Linear: one character class, anchored, with a bounded tail. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What the sandbox server in the pod is asked to run (see docker/sandbox-server). */
export interface ExecuteRequest {
  /** The entrypoint: an absolute path and its arguments, run without a shell. */
  entrypoint: string[];
  /** Written to the entrypoint's stdin. */
  stdin: string;
  /** The only variables the entrypoint gets besides the server's PATH, HOME, TMPDIR and LANG. */
  env: Record<string, string>;
  timeout_seconds: number;
  max_output_bytes: number;
  /** Put into the files directory (/mnt/data) before the run: name -> base64. */
  files?: Record<string, string>;
  /** Read back the files the run created or changed there, within these bounds. */
  collect?: { max_files: number; max_file_bytes: number; max_total_bytes: number };
}

interface ExecuteAnswer {
  status?: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number;
  /** Set by the server when it stopped the run itself. */
  stopped?: 'wall_time' | 'output_size';
  files_produced?: Record<string, unknown>;
  files_skipped?: unknown;
}

/** The request fields for files in and out. */
export function fileFields(
  files: SandboxFile[] | undefined,
  collect: SandboxCollectLimits | undefined,
): Pick<ExecuteRequest, 'files' | 'collect'> {
  return {
    ...(files?.length && {
      files: Object.fromEntries(files.map((file) => [file.name, file.content.toString('base64')])),
    }),
    ...(collect && {
      collect: {
        max_files: collect.maxFiles,
        max_file_bytes: collect.maxFileBytes,
        max_total_bytes: collect.maxTotalBytes,
      },
    }),
  };
}

/** Where a claimed sandbox is called: the pod itself, or the agent-sandbox router in front of it. */
export interface SandboxAddress {
  url: string;
  headers: Record<string, string>;
}

/**
 * POSTs the run to the sandbox server and reads its answer back as a run outcome. The answer is untrusted: it
 * is read up to a size bound (what max_output_bytes of stdout can take once JSON-encoded), and one that is not
 * the expected JSON fails the run.
 */
export async function execute(
  address: SandboxAddress,
  request: ExecuteRequest,
  signal: AbortSignal,
): Promise<SandboxRunOutcome> {
  const response = await fetch(address.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...address.headers },
    body: JSON.stringify(request),
    signal,
    redirect: 'error',
  });
  const filesBytes = request.collect
    ? Math.ceil(request.collect.max_total_bytes / 3) * 4 + request.collect.max_files * 1024
    : 0;
  const limit = request.max_output_bytes * 6 + filesBytes + ANSWER_OVERHEAD;
  const body = await readBounded(response, limit);
  if (body === undefined) return { ended: 'stopped', reason: 'output_size', stderr: '' };
  if (response.status === 429) throw new Error('the sandbox is at capacity (HTTP 429)');
  const answer = parseAnswer(body);
  if (!response.ok || !answer)
    throw new Error(
      `the sandbox server answered HTTP ${response.status}${errorOf(answer) ? `: ${errorOf(answer)}` : ' without the expected JSON'}`,
    );
  const stderr = typeof answer.stderr === 'string' ? answer.stderr.slice(-STDERR_KEPT) : '';
  if (answer.stopped === 'wall_time' || answer.stopped === 'output_size')
    return { ended: 'stopped', reason: answer.stopped, stderr };
  const stdout = Buffer.from(typeof answer.stdout === 'string' ? answer.stdout : '', 'utf8');
  if (stdout.length > request.max_output_bytes) return { ended: 'stopped', reason: 'output_size', stderr };
  if (!Number.isInteger(answer.exit_code)) throw new Error('the sandbox server answered without an exit_code');
  const output = request.collect ? filesOf(answer, request.collect) : undefined;
  return { ended: 'exited', exitCode: answer.exit_code!, stdout, stderr, ...(output && { output }) };
}

/**
 * The files the server sent back, checked again here: the pod is not trusted to keep to the names and bounds it
 * was given. What does not fit is left out, with the reason, as the local runtime does.
 */
function filesOf(answer: ExecuteAnswer, limits: NonNullable<ExecuteRequest['collect']>): SandboxOutputFiles {
  const files: SandboxFile[] = [];
  const skipped = Array.isArray(answer.files_skipped)
    ? answer.files_skipped.filter((line): line is string => typeof line === 'string').slice(0, 21)
    : [];
  let total = 0;
  const produced = answer.files_produced && typeof answer.files_produced === 'object' ? answer.files_produced : {};
  for (const [name, text] of Object.entries(produced).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const content = typeof text === 'string' && BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
    const shown = JSON.stringify(name).slice(0, 200);
    if (!isPlainName(name) || !content) skipped.push(`${shown}: not a file the sandbox server may return`);
    else if (files.length >= limits.max_files)
      skipped.push(`${shown}: more than ${limits.max_files} files were written`);
    else if (content.length > limits.max_file_bytes)
      skipped.push(`${shown}: larger than ${limits.max_file_bytes} bytes`);
    else if (total + content.length > limits.max_total_bytes)
      skipped.push(`${shown}: the files returned would exceed ${limits.max_total_bytes} bytes in all`);
    else {
      total += content.length;
      files.push({ name, content });
    }
  }
  return { files, skipped };
}

/** The body as text, or undefined once it grows past `limit` bytes (the rest is not read). */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseAnswer(body: string): ExecuteAnswer | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as ExecuteAnswer) : undefined;
  } catch {
    return undefined;
  }
}

function errorOf(answer: ExecuteAnswer | undefined): string | undefined {
  const error = (answer as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error.slice(0, 300) : undefined;
}
