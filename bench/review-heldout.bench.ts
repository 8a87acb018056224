import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { autoReview, autoReviewWithout, type ReviewSubject } from '../src/tools/catalog/auto-review';
import type { Permission } from '../src/tools/catalog/catalog.types';
import { FAMILY_CHECKS, type FamilyCheck } from '../src/tools/catalog/review/findings';

/** catalog.mandatory_review_threshold's default: below it, a human must review the tool. */
const THRESHOLD = 70;
const FIXTURES = join(__dirname, '../../test/fixtures/auto-review');

interface CorpusTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  permissions: Permission[];
  source?: string;
  family?: string;
  split?: Split;
}

/**
 * Splits of attack-families.json, each written before it was first scored: `tune` was tuned on; `heldout`
 * was written with it and scored after the checks were frozen; `heldout-2` and `heldout-3` were written after
 * that, each scored once against frozen checks. The misses of every split were then read and the checks
 * widened, so none of them is unseen any more. `heldout-4` was written by someone who had not read the checks,
 * and scored once after they were frozen: it is the unseen split.
 */
const SPLITS = ['tune', 'heldout', 'heldout-2', 'heldout-3', 'heldout-4'] as const;
type Split = (typeof SPLITS)[number];

const load = (file: string) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as CorpusTool[];

function subjectOf(tool: CorpusTool): ReviewSubject {
  return {
    name: tool.name,
    description: tool.description,
    schema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    permissions: tool.permissions,
    annotations: tool.annotations,
    sourceType: 'mcp',
  };
}

/**
 * Probability that a random attack scores below a random benign tool (ties count half): the area under the
 * ROC curve of "100 - score" as an attack score. Counted over the distinct scores, so linear after sorting.
 */
function auc(attackScores: number[], benignScores: number[]): number {
  if (!attackScores.length || !benignScores.length) return NaN;
  const benignAt = new Map<number, number>();
  for (const s of benignScores) benignAt.set(s, (benignAt.get(s) ?? 0) + 1);
  const sorted = [...benignAt.keys()].sort((a, b) => a - b);
  let wins = 0;
  for (const a of attackScores) {
    let above = 0;
    let tied = 0;
    for (const s of sorted) {
      if (s > a) above += benignAt.get(s)!;
      else if (s === a) tied = benignAt.get(s)!;
    }
    wins += above + tied / 2;
  }
  return wins / (attackScores.length * benignScores.length);
}

const pct = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(1)}%` : '-').padStart(6);
const fixed = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(3)).padStart(5);

/**
 * The held-out protocol for the automated review (`npm run bench review-heldout`).
 *
 * - attack-families.json: attacks written per family before the checks were tuned on them; every third of a
 *   family (`split: "heldout"`) was never looked at while tuning; `heldout-2` and `heldout-3`, six more per
 *   family each, and `heldout-4`, ten more per family, were written later (see SPLITS). Detection and AUC are
 *   reported per family and split; AUC compares a family's attacks with the held-out benign tools of all three
 *   held-out benign files.
 * - Leave one family out: each family has one check written for it (review/*.check.ts, FAMILY_CHECKS). With
 *   that check switched off, what the others still catch of the family (all its attacks) is how far the rest
 *   generalises to a family nobody wrote a check for.
 * - benign.json and malicious.json: the older corpus, used for tuning throughout.
 * - benign-heldout.json: real tools of MCP servers in no other fixture; the servers marked `split: "tune"`
 *   had their false positives reported before, the rest were never tuned on.
 * - benign-heldout-2.json: real tools of further servers in no other fixture, captured after the checks last
 *   changed.
 * - benign-heldout-3.json: real tools of further servers in no other fixture, captured after the checks' false
 *   positives on benign-heldout-2.json were read; never tuned on.
 *
 * The catalog every tool is reviewed against holds all benign tools, as a registry serving these servers would.
 */
/** The check written for a family, switched off for its leave-one-family-out run. */
function lofoCheck(family: string): FamilyCheck[] {
  const check = FAMILY_CHECKS.find((name) => name === family);
  if (!check) throw new Error(`attack-families.json: family ${family} has no check in FAMILY_CHECKS`);
  return [check];
}

export async function run(): Promise<void> {
  const benign = load('benign.json');
  const benignNew = load('benign-heldout.json');
  const benignNew2 = load('benign-heldout-2.json');
  const benignNew3 = load('benign-heldout-3.json');
  const legacy = load('malicious.json');
  const attacks = load('attack-families.json');
  const catalog = [...benign, ...benignNew, ...benignNew2, ...benignNew3].map((tool) => tool.name);
  const score = (tool: CorpusTool) => autoReview(subjectOf(tool), catalog).score;

  const benignSets: [string, CorpusTool[]][] = [
    ['benign.json (tuning)', benign],
    ['benign-heldout.json, tuning servers', benignNew.filter((t) => t.split === 'tune')],
    ['benign-heldout.json, held-out servers', benignNew.filter((t) => t.split !== 'tune')],
    ['benign-heldout-2.json, new servers', benignNew2],
    ['benign-heldout-3.json, new servers', benignNew3],
  ];
  const heldoutBenign = [...benignSets[2][1], ...benignSets[3][1], ...benignSets[4][1]];
  const heldoutBenignScores = heldoutBenign.map(score);

  console.log(`\nAutomated review, held-out protocol (threshold ${THRESHOLD})`);
  console.log('\n  False positives (benign tools scoring below the threshold)');
  for (const [label, tools] of benignSets) {
    const flagged = tools.filter((t) => score(t) < THRESHOLD);
    const servers = new Set(tools.map((t) => t.source)).size;
    console.log(
      `    ${label.padEnd(40)} ${pct(flagged.length, tools.length)}  (${flagged.length}/${tools.length} tools, ${servers} servers)`,
    );
  }

  const flaggedByServer = new Map<string, number>();
  for (const tool of heldoutBenign)
    if (score(tool) < THRESHOLD) flaggedByServer.set(tool.source!, (flaggedByServer.get(tool.source!) ?? 0) + 1);
  for (const [server, count] of [...flaggedByServer].sort((a, b) => b[1] - a[1]))
    console.log(`      ${server.replace(/^npm:/, '').padEnd(56)} ${String(count).padStart(3)}`);

  console.log('\n  Detection per family (attacks scoring below the threshold), AUC against held-out benign tools');
  const splitLabel = {
    tune: 'tune',
    heldout: 'held-out',
    'heldout-2': 'held-out 2',
    'heldout-3': 'held-out 3',
    'heldout-4': 'held-out 4',
  };
  console.log(
    `    ${'family'.padEnd(24)} ${SPLITS.map((split) => splitLabel[split].padStart(15)).join(' ')} ${SPLITS.map((split) => `AUC ${splitLabel[split]}`.padStart(15)).join(' ')} ${'LOFO (all)'.padStart(15)}`,
  );
  const families = [...new Set(attacks.map((t) => t.family!))];
  const totals = new Map(SPLITS.map((split) => [split, { detected: 0, scores: [] as number[] }]));
  const cell = (detected: number, of: number) => `${pct(detected, of)} (${detected}/${of})`.padStart(15);
  for (const family of families) {
    const cells: string[] = [];
    const aucs: string[] = [];
    for (const split of SPLITS) {
      const scores = attacks.filter((t) => t.family === family && t.split === split).map(score);
      const detected = scores.filter((s) => s < THRESHOLD).length;
      totals.get(split)!.detected += detected;
      totals.get(split)!.scores.push(...scores);
      cells.push(cell(detected, scores.length));
      aucs.push(fixed(auc(scores, heldoutBenignScores)).padStart(15));
    }
    const own = attacks.filter((t) => t.family === family);
    const withoutOwn = own.filter(
      (t) => autoReviewWithout(subjectOf(t), catalog, lofoCheck(family)).score < THRESHOLD,
    ).length;
    console.log(`    ${family.padEnd(24)} ${cells.join(' ')} ${aucs.join(' ')} ${cell(withoutOwn, own.length)}`);
  }
  console.log(
    `    ${'all families'.padEnd(24)} ${SPLITS.map((split) => cell(totals.get(split)!.detected, totals.get(split)!.scores.length)).join(' ')} ${SPLITS.map((split) => fixed(auc(totals.get(split)!.scores, heldoutBenignScores)).padStart(15)).join(' ')}`,
  );
  const legacyScores = legacy.map(score);
  const legacyDetected = legacyScores.filter((s) => s < THRESHOLD).length;
  console.log(
    `    ${'malicious.json (tuning)'.padEnd(24)} ${cell(legacyDetected, legacy.length)}   AUC ${fixed(auc(legacyScores, heldoutBenignScores))}`,
  );
}
