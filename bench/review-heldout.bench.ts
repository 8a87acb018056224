import { autoReview, autoReviewWithout } from '../src/tools/catalog/auto-review';
import { FAMILY_CHECKS, type FamilyCheck } from '../src/tools/catalog/review/findings';
import { SentenceModel } from '../src/tools/catalog/review/model/sentence-model';
import {
  type CorpusTool,
  HELDOUT_ATTACKS,
  HELDOUT_BENIGN_HANDWRITTEN,
  HELDOUT_BENIGN_SERVERS,
  loadCorpus,
  reviewCatalog,
  shippedTrainingSet,
  subjectOf,
  TRAINING_ATTACKS,
  TRAINING_BENIGN,
  writerOf,
  WRITER_ROUNDS_IN_TRAINING,
  writerRounds,
} from './support/review-corpus';
import { trainCalibrated } from './support/review-model-training';
import {
  auc,
  belowCell,
  cell,
  detectionAtFp,
  FP_BUDGET,
  fixed,
  pct,
  remembered,
  THRESHOLD,
} from './support/review-scoring';

/**
 * Splits of the attack fixtures, each written before it was first scored. `tune` was tuned on; `heldout` was
 * written with it and scored after the checks were frozen; `heldout-2`, `heldout-3` and `heldout-4` were
 * written later, each scored once against frozen checks (`heldout-4` by someone who had not read the checks).
 * The misses of every one of them were then read, and the rule checks widened and the sentence model trained
 * on them, so none of them is unseen any more. `heldout-5` to `heldout-8` (attack-heldout-N.json) were each
 * written by someone who had not read the checks, committed, and scored on the review of the day before anyone
 * read them (5 on the first sentence model, 6 on the second, 7 on the third, 8 on the fourth, 9 to 11 on the
 * fifth, 12 and 13 on the seventh); 5 to 8 then became training data. `heldout-9` to `heldout-13` are in no
 * training set: they are the unseen split, never read (the sixth and seventh models were trained after 10 and
 * 11 were first scored, on new training sets only). `train-a` to `train-h` (attack-training-*.json) were
 * written as training data only and count in the leave-one-family-out runs.
 */
const SPLITS = [
  'tune',
  'heldout',
  'heldout-2',
  'heldout-3',
  'heldout-4',
  'heldout-5',
  'heldout-6',
  'heldout-7',
  'heldout-8',
  'heldout-9',
  'heldout-10',
  'heldout-11',
  'heldout-12',
  'heldout-13',
] as const;
type Split = (typeof SPLITS)[number];
/** The splits no version of the checks or the model was tuned or trained on. */
const UNSEEN_SPLITS: Split[] = ['heldout-9', 'heldout-10', 'heldout-11', 'heldout-12', 'heldout-13'];
const SPLIT_LABEL: Record<Split | 'all', string> = {
  tune: 'tune',
  heldout: 'held-out',
  'heldout-2': 'held-out 2',
  'heldout-3': 'held-out 3',
  'heldout-4': 'held-out 4',
  'heldout-5': 'held-out 5',
  'heldout-6': 'held-out 6',
  'heldout-7': 'held-out 7',
  'heldout-8': 'held-out 8',
  'heldout-9': 'UNSEEN 9',
  'heldout-10': 'UNSEEN 10',
  'heldout-11': 'UNSEEN 11',
  'heldout-12': 'UNSEEN 12',
  'heldout-13': 'UNSEEN 13',
  all: 'all unseen',
};

/** The check written for a family, switched off for its leave-one-family-out run. */
function lofoCheck(family: string): FamilyCheck[] {
  const check = FAMILY_CHECKS.find((name) => name === family);
  if (!check) throw new Error(`attack fixtures: family ${family} has no check in FAMILY_CHECKS`);
  return [check];
}

/**
 * The held-out protocol for the automated review (`npm run bench review-heldout`).
 *
 * - The unseen test: attack-heldout-9.json to -13.json (20 attacks per family each, written blind) against the
 *   benign tools no version of the model was trained on: benign-heldout-5.json and -6.json (real tools of 64
 *   and 40 MCP servers in no other fixture, captured blind) and benign-handwritten-heldout(-2).json (400
 *   hand-written tools, written blind). The attacks have not been read; of the benign tools, only the flagged
 *   ones of benign-heldout-6.json were, after their first scoring (a server's siblings were then no longer
 *   compared for impersonation). Reported for the rule checks alone and for the whole review (rules and the
 *   shipped sentence model), with AUC.
 * - Detection per family and split of every attack round (SPLITS).
 * - Leave one family out: each family has one rule check written for it (review/*.check.ts, FAMILY_CHECKS).
 *   With that check switched off, and with a sentence model trained and calibrated without the family's
 *   attacks (malicious.json, the older corpus without families, stays in), what the review still catches of
 *   the family (every split) is how far it generalises to a family nobody wrote a check for or trained on.
 * - benign*.json: false positives per file; benign.json and the `tune` servers of benign-heldout.json were
 *   tuned on throughout; benign-heldout-2 to -4 were captured blind, scored, and are now training data.
 *
 * The catalog every tool is reviewed against is reviewCatalog's (review-corpus.ts).
 */
export async function run(): Promise<void> {
  const training = new Map(TRAINING_BENIGN.map((file) => [file, loadCorpus(file)]));
  const unseenServerFiles = HELDOUT_BENIGN_SERVERS.map((file): [string, CorpusTool[]] => [file, loadCorpus(file)]);
  const unseenServers = unseenServerFiles.flatMap(([, tools]) => tools);
  const unseenHandwritten = HELDOUT_BENIGN_HANDWRITTEN.flatMap(loadCorpus);
  // Once the model learns from the writer rounds they are no longer unseen: `npm run bench review-writers` holds them out.
  const writers = WRITER_ROUNDS_IN_TRAINING ? { attacks: [], benign: [] } : writerRounds();
  const legacy = loadCorpus('malicious.json');
  // Every attack with a family: malicious.json, the older corpus without families, is reported on its own.
  const attacks = [...TRAINING_ATTACKS, ...HELDOUT_ATTACKS]
    .filter((file) => file !== 'malicious.json')
    .flatMap(loadCorpus);
  const { catalog, catalogFor } = reviewCatalog();
  // Each tool is scored once per review, whichever tables report it.
  const score = remembered((tool) => autoReview(subjectOf(tool), catalogFor(tool)).score);
  const ruleScore = remembered((tool) => autoReviewWithout(subjectOf(tool), catalogFor(tool), [], null).score);
  const families = [...new Set(attacks.map((t) => t.family!))];

  console.log(`\nAutomated review, held-out protocol (threshold ${THRESHOLD})`);
  console.log('\n  UNSEEN: attacks and benign tools neither read nor trained on');
  const unseenAttacks = [...attacks.filter((t) => UNSEEN_SPLITS.includes(t.split as Split)), ...writers.attacks];
  const unseenBenign = [...unseenServers, ...unseenHandwritten, ...writers.benign];
  const unseenWriters = [...new Set(writers.attacks.map(writerOf))];
  for (const [label, scoreOf] of [
    ['rule checks alone', ruleScore],
    ['whole review (rules + sentence model)', score],
  ] as const) {
    const benignScores = unseenBenign.map(scoreOf);
    console.log(`    ${label}`);
    for (const [set, tools] of [
      ...unseenServerFiles.map(([file, tools]): [string, CorpusTool[]] => [`${file} (real servers)`, tools]),
      ['benign-handwritten-heldout(-2).json', unseenHandwritten] as [string, CorpusTool[]],
      ...(writers.benign.length ? [['benign-writer-*.json', writers.benign] as [string, CorpusTool[]]] : []),
    ]) {
      console.log(`      false positives, ${set.padEnd(40)} ${belowCell(tools.map(scoreOf))}`);
    }
    for (const split of [...UNSEEN_SPLITS, 'all'] as const) {
      const scores = unseenAttacks.filter((t) => split === 'all' || t.split === split).map(scoreOf);
      console.log(
        `      detection, ${SPLIT_LABEL[split].padEnd(48)} ${belowCell(scores)}   AUC ${fixed(auc(scores, benignScores))}`,
      );
    }
    for (const writer of unseenWriters) {
      const scores = writers.attacks.filter((t) => writerOf(t) === writer).map(scoreOf);
      console.log(
        `      detection, writer ${writer.padEnd(41)} ${belowCell(scores)}   AUC ${fixed(auc(scores, benignScores))}`,
      );
    }
    console.log(
      `      detection at ${FP_BUDGET * 100}% false positives, all unseen       ${detectionAtFp(unseenAttacks.map(scoreOf), benignScores)}`,
    );
    for (const family of [...new Set(unseenAttacks.map((t) => t.family!))]) {
      const scores = unseenAttacks.filter((t) => t.family === family).map(scoreOf);
      console.log(`        ${family.padEnd(50)} ${belowCell(scores)}   AUC ${fixed(auc(scores, benignScores))}`);
    }
  }

  console.log('\n  False positives (benign tools scoring below the threshold), whole review');
  const benignSets: [string, CorpusTool[]][] = [
    ...[...training].flatMap(([file, tools]): [string, CorpusTool[]][] =>
      file === 'benign-heldout.json'
        ? [
            [`${file}, tuning servers`, tools.filter((t) => t.split === 'tune')],
            [`${file}, other servers`, tools.filter((t) => t.split !== 'tune')],
          ]
        : [[file, tools]],
    ),
    ...unseenServerFiles.map(([file, tools]): [string, CorpusTool[]] => [`${file} (UNSEEN)`, tools]),
    ['benign-handwritten-heldout(-2).json (UNSEEN)', unseenHandwritten],
    ...(writers.benign.length ? [['benign-writer-*.json (UNSEEN)', writers.benign] as [string, CorpusTool[]]] : []),
  ];
  for (const [label, tools] of benignSets) {
    const flagged = tools.filter((t) => score(t) < THRESHOLD);
    const servers = new Set(tools.map((t) => t.source)).size;
    console.log(
      `    ${label.padEnd(40)} ${pct(flagged.length, tools.length)}  (${flagged.length}/${tools.length} tools, ${servers} servers)`,
    );
  }
  const flaggedByServer = new Map<string, number>();
  for (const tool of unseenServers)
    if (score(tool) < THRESHOLD) flaggedByServer.set(tool.source!, (flaggedByServer.get(tool.source!) ?? 0) + 1);
  for (const [server, count] of [...flaggedByServer].sort((a, b) => b[1] - a[1]))
    console.log(`      ${server.replace(/^npm:/, '').padEnd(56)} ${String(count).padStart(3)}`);

  console.log(
    "\n  Detection per family and split (whole review); LOFO: without the family's rule check and with a sentence\n" +
      '  model trained and calibrated without the family',
  );
  console.log(
    `    ${'family'.padEnd(24)} ${SPLITS.map((split) => SPLIT_LABEL[split].padStart(15)).join(' ')} ${'LOFO (all)'.padStart(15)}`,
  );
  const totals = new Map(SPLITS.map((split) => [split, { detected: 0, of: 0 }]));
  const lofoTotal = { detected: 0, of: 0 };
  for (const family of families) {
    const cells: string[] = [];
    for (const split of SPLITS) {
      const scores = attacks.filter((t) => t.family === family && t.split === split).map(score);
      const detected = scores.filter((s) => s < THRESHOLD).length;
      totals.get(split)!.detected += detected;
      totals.get(split)!.of += scores.length;
      cells.push(cell(detected, scores.length));
    }
    const foldModel = SentenceModel.fromData(
      trainCalibrated(shippedTrainingSet((t, attack) => attack && t.family === family)),
    );
    const own = attacks.filter((t) => t.family === family);
    const withoutOwn = own.filter(
      (t) => autoReviewWithout(subjectOf(t), catalog, lofoCheck(family), foldModel).score < THRESHOLD,
    ).length;
    lofoTotal.detected += withoutOwn;
    lofoTotal.of += own.length;
    console.log(`    ${family.padEnd(24)} ${cells.join(' ')} ${cell(withoutOwn, own.length)}`);
  }
  console.log(
    `    ${'all families'.padEnd(24)} ${SPLITS.map((split) => cell(totals.get(split)!.detected, totals.get(split)!.of)).join(' ')} ${cell(lofoTotal.detected, lofoTotal.of)}`,
  );
  const legacyScores = legacy.map(score);
  console.log(
    `    ${'malicious.json (tuning)'.padEnd(24)} ${belowCell(legacyScores)}   AUC ${fixed(auc(legacyScores, unseenBenign.map(score)))}`,
  );

  leaveOneWriterOut(attacks, score, unseenWriters.length ? writers.attacks : []);
}

/**
 * Leave one writer out: the attacks are grouped by who wrote them (each earlier round, or split, counts as one
 * writer; the writer rounds by their `writer`). For each writer of the training rounds, a sentence model trained
 * and calibrated without that writer's attacks reviews them, as it would a new writer's; beside it, what the
 * shipped review catches of the same attacks. The rule checks stay on in both (they were written after reading
 * these rounds, so the figure flatters them): the gap between the columns is what the model owes to having read
 * the writer. Unseen writers are listed for comparison: nothing was trained or tuned on them.
 */
function leaveOneWriterOut(attacks: CorpusTool[], score: (tool: CorpusTool) => number, unseen: CorpusTool[]): void {
  const { catalog } = reviewCatalog();
  const training = [...TRAINING_ATTACKS.flatMap(loadCorpus)];
  const groups = [...new Set(training.map(writerOf))];
  console.log('\n  Leave one writer out: a sentence model trained without the writer, rule checks on');
  console.log(`    ${'writer'.padEnd(24)} ${'shipped review'.padStart(15)} ${'without writer'.padStart(15)}`);
  const total = { shipped: 0, without: 0, of: 0 };
  for (const writer of groups) {
    const own = training.filter((t) => writerOf(t) === writer);
    const model = SentenceModel.fromData(
      trainCalibrated(shippedTrainingSet((t, attack) => attack && writerOf(t) === writer)),
    );
    const shipped = own.filter((t) => score(t) < THRESHOLD).length;
    const without = own.filter((t) => autoReviewWithout(subjectOf(t), catalog, [], model).score < THRESHOLD).length;
    total.shipped += shipped;
    total.without += without;
    total.of += own.length;
    console.log(`    ${writer.padEnd(24)} ${cell(shipped, own.length)} ${cell(without, own.length)}`);
  }
  console.log(
    `    ${'all training writers'.padEnd(24)} ${cell(total.shipped, total.of)} ${cell(total.without, total.of)}`,
  );
  for (const split of UNSEEN_SPLITS) {
    const scores = attacks.filter((t) => t.split === split).map(score);
    console.log(`    ${`${split} (unseen)`.padEnd(24)} ${belowCell(scores)}`);
  }
  for (const writer of [...new Set(unseen.map(writerOf))]) {
    const scores = unseen.filter((t) => writerOf(t) === writer).map(score);
    console.log(`    ${`${writer} (unseen)`.padEnd(24)} ${belowCell(scores)}`);
  }
}
