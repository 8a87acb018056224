import { Redactor } from '../src/tools/catalog/audit/redaction';
import { timePerCall } from './support/time-per-call';

const SIZE = 64 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

/**
 * 64 KB texts, each built to make one credential pattern backtrack as much as it can; a linear scanner
 * takes about as long on them as on ordinary prose (the baseline), a quadratic one hundreds of times longer.
 */
const TEXTS: [string, string][] = [
  ['prose (baseline)', fill('The quick brown fox jumps over the lazy dog; nothing secret here. ')],
  ['URL scheme run "a.a.a..."', fill('a.')],
  ['JWT run "-eyJ-eyJ..."', fill('-eyJ')],
  ['private key BEGIN without END', fill('-----BEGIN PRIVATE KEY-----\n')],
  ['assignments "password=x "', fill('password=x ')],
  ['key words without values "token token"', fill('token ')],
  ['percent runs "%%%..."', fill('%')],
  ['entity starts "&#&#..."', fill('&#')],
  ['escape starts "\\u\\u..."', fill('\\u')],
  ['encoded assignments "pass%77ord=x "', fill('pass%77ord=x ')],
  ['lookalike letters "раssword=x "', fill('раssword=x ')],
  ['quoted pairs \'"pin", "1", \'', fill('"pin", "1", ')],
];

function nested(depth: number): unknown {
  let value: unknown = { password: 'hunter2', note: 'ok' };
  for (let level = 1; level < depth; level++) value = { a: value, b: [level, 'x'] };
  return value;
}

function innermost(value: unknown): { password?: unknown } {
  let at = value as { a?: unknown; password?: unknown };
  while (at.a !== undefined) at = at.a as typeof at;
  return at;
}

/** `npm run bench redaction`: audit redaction of hostile texts and deep values, against ordinary input. */
export async function run(): Promise<void> {
  const redactor = new Redactor();
  console.log('\nAudit redaction of 64 KB texts (ratio against the prose baseline)');
  const baseline = timePerCall(() => redactor.redactText(TEXTS[0][1]));
  for (const [label, text] of TEXTS) {
    const perCall = label === TEXTS[0][0] ? baseline : timePerCall(() => redactor.redactText(text));
    console.log(`  ${label.padEnd(44)} ${perCall.toFixed(3).padStart(10)} ms   ${(perCall / baseline).toFixed(1)}x`);
  }
  console.log('\nAudit redaction of nested values (a password at the innermost level)');
  for (const depth of [10, 100, 1000, 10_000]) {
    const value = nested(depth);
    let outcome: string;
    try {
      const perCall = timePerCall(() => redactor.redact(value));
      const leaked = innermost(redactor.redact(value)).password === 'hunter2';
      outcome = `${perCall.toFixed(3).padStart(10)} ms   ${leaked ? 'password LEFT IN PLAIN TEXT' : 'password redacted'}`;
    } catch (error) {
      outcome = `failed: ${(error as Error).message}`;
    }
    console.log(`  ${`${depth} levels`.padEnd(44)} ${outcome}`);
  }
}
