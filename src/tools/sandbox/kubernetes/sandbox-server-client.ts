import type { SandboxRunOutcome } from '../sandbox-limits';

/** Above the JSON-escaped stdout (at most 6 bytes per byte, `\u0000`), room for stderr and the other fields. */
const ANSWER_OVERHEAD = 65_536;
const STDERR_KEPT = 4096;

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
}

interface ExecuteAnswer {
  status?: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number;
  /** Set by the server when it stopped the run itself. */
  stopped?: 'wall_time' | 'output_size';
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
  const limit = request.max_output_bytes * 6 + ANSWER_OVERHEAD;
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
  return { ended: 'exited', exitCode: answer.exit_code!, stdout, stderr };
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
