import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { performance } from 'node:perf_hooks';
import { JsonSchemaValidator } from '../src/common/json-schema';
import { autoReview, type ReviewSubject } from '../src/tools/catalog/auto-review';

/** The shortest of a few runs, in milliseconds: the cost of the work itself, not of whatever else ran. */
function time(work: () => unknown, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0).padStart(9)} ms`;

/**
 * A hostile `pattern` against a non-matching argument: ajv's default engine (JavaScript's backtracking
 * RegExp, the baseline) against the validator the service uses (RE2). The baseline doubles with each
 * character, so it is measured on short inputs only; the service's engine also on a 100,000-character one.
 */
function redos(): void {
  const schema = { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } };
  const backtracking = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
  const linear = new JsonSchemaValidator();
  const input = (n: number) => ({ q: `${'a'.repeat(n)}!` });
  console.log(`\nSchema pattern ^(a+)+$ against 'a' * n + '!' (validation time)`);
  let baseline = 0;
  let subject = 0;
  for (const n of [18, 20, 22, 24]) {
    baseline = time(() => backtracking(input(n)), 1);
    subject = time(() => linear.validate(schema, input(n)));
    console.log(`  n = ${String(n).padStart(6)}   backtracking RegExp ${ms(baseline)}   RE2 ${ms(subject)}`);
  }
  for (const n of [30, 100_000]) {
    console.log(
      `  n = ${String(n).padStart(6)}   backtracking RegExp  (not run)   RE2 ${ms(time(() => linear.validate(schema, input(n))))}`,
    );
  }
  console.log(`  ratio at n = 24 (RE2 / backtracking): ${(subject / baseline).toFixed(5)}x`);
}

/** The megabyte cases run once; the capped ones take the best of three (the first also pays for JIT warm-up). */
function review(label: string, subject: Partial<ReviewSubject>, runs = 3): number {
  const full: ReviewSubject = { name: 'bench_tool', description: '', schema: {}, permissions: [], ...subject };
  const elapsed = time(() => autoReview(full, ['read_file', 'send_email', 'search_docs']), runs);
  console.log(`  ${label.padEnd(66)} ${ms(elapsed)}`);
  return elapsed;
}

/**
 * The automated review on large and hostile texts. Linear means the 2 MB description costs about twice the
 * 1 MB one; the capped maxima (catalog.max_description_length, catalog.max_schema_bytes) bound what any
 * registration or discovery can cost.
 */
function reviewCost(): void {
  console.log('\nAutomated review');
  const oneMb = review('description "a. " * 1 MB', { description: 'a. '.repeat(349_526) }, 1);
  const twoMb = review('description "a. " * 2 MB', { description: 'a. '.repeat(699_051) }, 1);
  console.log(`  ratio (2 MB / 1 MB): ${(twoMb / oneMb).toFixed(2)}x (linear: 2x, quadratic: 4x)`);

  const capped = 16_384;
  const fill = (unit: string) => unit.repeat(Math.floor(capped / unit.length));
  const shapes: [string, string][] = [
    ['"a. "', fill('a. ')],
    ['one sentence of moving verbs ("send ")', fill('send ')],
    ['dotted words ("a.")', fill('a.')],
    ['URLs in one sentence', fill('see https://a.example/?q=1 ')],
    ['newlines', fill('\n')],
    ['"<" and spaces', `<${' '.repeat(capped - 1)}`],
    ['"#"', fill('#')],
    ['e-mail-like run ("a.b@")', fill('a.b@')],
    ['one hyphenated word ("a-")', fill('a-')],
    ['one sentence naming tools ("call a_b ")', fill('call a_b ')],
    ['clauses of orders ("run x: ")', fill('run x: ')],
  ];
  let worst = 0;
  for (const [label, description] of shapes)
    worst = Math.max(worst, review(`capped description (16384): ${label}`, { description }));
  const parameters = Object.fromEntries(
    Array.from({ length: 1200 }, (_, i) => [`p${i}`, { type: 'string', description: 'Text to send. '.repeat(4) }]),
  );
  const schema = { type: 'object', properties: parameters };
  worst = Math.max(
    worst,
    review(`capped schema (${Math.round(JSON.stringify(schema).length / 1024)} KB, 1200 parameters)`, { schema }),
  );
  console.log(`  worst capped case: ${ms(worst)}`);
}

/** `npm run bench untrusted-input`: hostile schema patterns and review inputs. */
export async function run(): Promise<void> {
  redos();
  reviewCost();
  return Promise.resolve();
}
