import { performance } from 'node:perf_hooks';
import { chunkText, tokenizer } from '../src/tools/builtins/file-search/ingestion/chunker';
import { makeDocx, makePdf } from './support/documents';
import { BenchApp, LoadResult, measure, startBenchApp } from './support/harness';

/**
 * /healthz latency while file_search ingests hostile documents, against the same server idle: parsing,
 * chunking and tokenizing run in document threads, so none of these may stall the event loop.
 * Files: a DOCX whose document.xml expands to 300 MB, a 10,000-page PDF (both over the default limits),
 * a 1,500-page PDF (under max_pages: parsed in full), a DOCX of 400,000 paragraphs (parsed in full), and
 * text the tokenizer sees as one huge piece: 65,536 × `a`, 8 KB of random letters, a 5 MB CSV with one long
 * field, 200 KB of nested JSON brackets.
 * They are added again as soon as they settle, so the work goes on for the whole measurement.
 * Then the tokenizer alone, on runs of letters, digits, punctuation and brackets from 10 KB to 10 MB: time
 * per character against the 10 KB run of the same kind (1.0x at every size is linear).
 */
const SECONDS = 10;
const CONNECTIONS = 4;
const MB = 1024 * 1024;

export async function run(): Promise<void> {
  console.log('\nfile_search hostile files: building documents...');
  const files: [string, Buffer][] = [
    ['bomb.docx', await makeDocx(['A'.repeat(300 * MB)], { compressed: true })],
    ['huge.pdf', await makePdf(Array.from({ length: 10_000 }, (_, i) => [`page ${i}`]))],
    ['long.pdf', await makePdf(Array.from({ length: 1_500 }, (_, i) => [`page ${i} of a long report`]))],
    [
      'paragraphs.docx',
      await makeDocx(
        Array.from({ length: 400_000 }, (_, i) => `paragraph ${i}`),
        { compressed: true },
      ),
    ],
    ['letters.txt', Buffer.from('a'.repeat(65_536))],
    ['random-letters.txt', Buffer.from(randomText(8 * 1024, LETTERS))],
    ['long-field.csv', Buffer.from(`name,notes\nalice,${randomText(5 * MB, LETTERS)}\n`)],
    ['deep.json', Buffer.from('['.repeat(100 * 1024) + ']'.repeat(100 * 1024))],
  ];
  const app = await startBenchApp({ builtins: { file_search: { workers: 4, poll_interval: '100ms' } } });
  try {
    const healthz = { label: '', url: `${app.baseUrl}/healthz` };
    await measure({ ...healthz, label: 'warm-up' }, 1, CONNECTIONS);
    const idle = await measure({ ...healthz, label: 'GET /healthz, idle' }, SECONDS, CONNECTIONS);

    const storeId = await createStore(app);
    const fileIds = await Promise.all(files.map(([name, bytes]) => upload(app, name, bytes)));
    const stop = new AbortController();
    const churn = keepIngesting(app, storeId, fileIds, stop.signal);
    const busy = await measure({ ...healthz, label: 'GET /healthz, ingesting hostile files' }, SECONDS, CONNECTIONS);
    stop.abort();
    const outcomes = await churn;

    console.log('file_search hostile files: /healthz while ingesting, versus idle (same server, same run)');
    console.log(
      `  files: ${files.map(([name, bytes]) => `${name} (${(bytes.length / MB).toFixed(1)} MB)`).join(', ')}`,
    );
    console.log(`  ingestion rounds completed during the measurement: ${outcomes.rounds}`);
    console.log(`  last outcomes: ${outcomes.last.join(', ')}`);
    printRow(idle);
    printRow(busy);
    console.log(
      `  ratio (ingesting / idle): p99 ${(busy.p99 / idle.p99).toFixed(2)}x, throughput ` +
        `${(busy.requestsPerSecond / idle.requestsPerSecond).toFixed(2)}x; p99 while ingesting ${busy.p99.toFixed(1)} ms ` +
        `(${busy.p99 < 100 ? 'under' : 'OVER'} the 100 ms target); worst /healthz delay ${busy.max.toFixed(0)} ms ` +
        `(idle ${idle.max.toFixed(0)} ms)`,
    );
  } finally {
    await app.close();
  }
  tokenizerScaling();
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const RUNS: [string, (length: number) => string][] = [
  ['letters', (length) => randomText(length, LETTERS)],
  ['digits', (length) => randomText(length, '0123456789')],
  ['punctuation', (length) => randomText(length, '!"#$%&\'*+,-./:;<=>?@\\^_`|~')],
  ['brackets', (length) => '['.repeat(length)],
];
const RUN_LENGTHS = [10 * 1024, 100 * 1024, MB, 10 * MB];

/** Chunking (tokenizing included) of one run per kind and length: linear means a flat time per character. */
function tokenizerScaling(): void {
  tokenizer();
  console.log('file_search tokenizer on runs without a break: time per character versus the 10 KB run');
  for (const [kind, make] of RUNS) {
    let baseline = 0;
    const cells: string[] = [];
    for (const length of RUN_LENGTHS) {
      const text = make(length);
      const started = performance.now();
      let chunks = 0;
      for (const chunk of chunkText(text, 800, 400)) chunks += chunk.tokens > 0 ? 1 : 0;
      const perChar = ((performance.now() - started) * 1000) / length;
      baseline ||= perChar;
      cells.push(
        `${describe(length)} ${perChar.toFixed(2)} µs/char (${(perChar / baseline).toFixed(2)}x, ${chunks} chunks)`,
      );
    }
    console.log(`  ${kind.padEnd(12)} ${cells.join('   ')}`);
  }
}

function describe(bytes: number): string {
  return bytes >= MB ? `${bytes / MB} MB` : `${bytes / 1024} KB`;
}

/** Deterministic pseudo-random text from `alphabet` (xorshift32, so every run measures the same text). */
function randomText(length: number, alphabet: string): string {
  const out = new Array<string>(length);
  let state = 2463534242;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = alphabet[(state >>> 0) % alphabet.length];
  }
  return out.join('');
}
function printRow(r: LoadResult): void {
  console.log(
    `  ${r.label.padEnd(40)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   ` +
      `p99 ${r.p99.toFixed(1).padStart(6)} ms   errors ${r.errors}`,
  );
}

/** Adds every file to the store, waits until all have settled, and starts over until stopped. */
async function keepIngesting(
  app: BenchApp,
  storeId: string,
  fileIds: string[],
  signal: AbortSignal,
): Promise<{ rounds: number; last: string[] }> {
  let rounds = 0;
  let last: string[] = [];
  while (!signal.aborted) {
    for (const fileId of fileIds) await api(app, 'POST', `/v1/vector_stores/${storeId}/files`, { file_id: fileId });
    for (;;) {
      const files = await Promise.all(
        fileIds.map(
          (id) =>
            api(app, 'GET', `/v1/vector_stores/${storeId}/files/${id}`) as Promise<{
              status: string;
              last_error: { code: string } | null;
            }>,
        ),
      );
      if (files.every((f) => f.status !== 'in_progress')) {
        last = files.map((f) => f.last_error?.code ?? f.status);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    rounds++;
  }
  return { rounds, last };
}

async function createStore(app: BenchApp): Promise<string> {
  return ((await api(app, 'POST', '/v1/vector_stores', { name: 'hostile' })) as { id: string }).id;
}

async function upload(app: BenchApp, name: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([bytes]), name);
  const response = await fetch(`${app.baseUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${app.adminKey}` },
    body: form,
  });
  if (!response.ok) throw new Error(`Uploading ${name} failed: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function api(app: BenchApp, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} failed: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}
