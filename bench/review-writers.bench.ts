import { autoReviewWithout } from '../src/tools/catalog/auto-review';
import { SentenceModel } from '../src/tools/catalog/review/model/sentence-model';
import {
  type CorpusTool,
  HELDOUT_ATTACKS,
  HELDOUT_BENIGN_HANDWRITTEN,
  HELDOUT_BENIGN_SERVERS,
  loadCorpus,
  reviewCatalog,
  subjectOf,
  trainingSetWithWriterRounds,
  writerRounds,
} from './support/review-corpus';
import { trainCalibrated } from './support/review-model-training';
import { auc, belowCell, detectionAtFp, fixed, pct, remembered, THRESHOLD } from './support/review-scoring';

/** The real servers captured last, after the writer rounds were first scored: false positives on new servers. */
const NEWEST_SERVERS = 'benign-heldout-7.json';

type Score = (tool: CorpusTool) => number;

/** One line: detection below the threshold, AUC and detection at 3% false positives against `benign`. */
function line(label: string, attacks: CorpusTool[], benign: CorpusTool[], score: Score): string {
  const attackScores = attacks.map(score);
  const benignScores = benign.map(score);
  return (
    `    ${label.padEnd(30)} ${belowCell(attackScores)}   AUC ${fixed(auc(attackScores, benignScores))}   ` +
    `at 3% FP ${detectionAtFp(attackScores, benignScores)}`
  );
}

/** What both benches read: the writer rounds, the held-out benign tools, and scorers. */
function corpus() {
  const { catalogFor } = reviewCatalog();
  const writers = writerRounds();
  const heldOutBenign = [...HELDOUT_BENIGN_SERVERS, ...HELDOUT_BENIGN_HANDWRITTEN].flatMap(loadCorpus);
  const names = [...new Set(writers.attacks.map((t) => t.writer!))];
  const families = [...new Set(writers.attacks.map((t) => t.family!))];
  const shipped = remembered((tool) => autoReviewWithout(subjectOf(tool), catalogFor(tool), []).score);
  const modelScore = (model: SentenceModel) =>
    remembered((tool) => autoReviewWithout(subjectOf(tool), catalogFor(tool), [], model).score);
  return { writers, heldOutBenign, names, families, shipped, modelScore };
}

/**
 * The writer rounds (`npm run bench review-writers`): attack-writer-*.json, written by five people in parallel
 * (a red-teamer, a vendor-docs writer, a marketer, an integrator, a non-native writer), each with benign
 * counter-examples in the same voice, in seven families the earlier rounds did not name (prerequisite chains,
 * harmful behaviour stated as a feature, advertising, polite social engineering, payloads outside the description,
 * secret exposure, classic injections).
 *
 * - The shipped review on each writer's round and family, against the benign tools no model was trained on
 *   (benign-heldout-5 to -7.json, benign-handwritten-heldout(-2).json) and the writer's own counter-examples;
 *   beside them the unseen rounds of `npm run bench review-heldout` (attack-heldout-9 to -13.json) and the false
 *   positives on each held-out benign set, so that a retrained model is compared on both at once.
 * - Leave one writer out: a sentence model trained and calibrated, by the procedure of `npm run train:review-model`,
 *   on the shipped training set and the other four writers' rounds (attacks and counter-examples), reviews the
 *   fifth writer's round. Its benign side is scored by the same model: the held-out benign tools and the writer's
 *   counter-examples.
 * - Leave one family out (`npm run bench review-writer-families`): the same, trained on every writer round less
 *   the family's attacks (of every writer), reviewing that family. None of these families has a rule check of its
 *   own, so every rule stays on.
 * - False positives per server of benign-heldout-7.json, real servers captured after the writer rounds were
 *   first scored, several of them vendors writing their tool texts as instructions to the model.
 */
export async function run(): Promise<void> {
  const { writers, heldOutBenign, names, families, shipped, modelScore } = corpus();
  const newest = loadCorpus(NEWEST_SERVERS);

  console.log(`\nWriter rounds (threshold ${THRESHOLD}); benign side: held-out benign tools and counter-examples`);
  console.log('\n  Shipped review');
  const allBenign = [...heldOutBenign, ...writers.benign];
  for (const writer of names) {
    const own = writers.benign.filter((t) => t.writer === writer);
    console.log(
      line(
        writer,
        writers.attacks.filter((t) => t.writer === writer),
        [...heldOutBenign, ...own],
        shipped,
      ),
    );
    console.log(`      false positives on the writer's counter-examples ${belowCell(own.map(shipped))}`);
  }
  console.log(line('all writers', writers.attacks, allBenign, shipped));
  for (const family of families)
    console.log(
      line(
        `  ${family}`,
        writers.attacks.filter((t) => t.family === family),
        allBenign,
        shipped,
      ),
    );
  console.log(line('attack-heldout-9 to -13.json', HELDOUT_ATTACKS.flatMap(loadCorpus), heldOutBenign, shipped));
  for (const file of HELDOUT_BENIGN_SERVERS) {
    const tools = loadCorpus(file);
    console.log(`    false positives, ${file.padEnd(28)} ${belowCell(tools.map(shipped))}`);
  }
  const handwritten = HELDOUT_BENIGN_HANDWRITTEN.flatMap(loadCorpus);
  console.log(
    `    false positives, ${'benign-handwritten-heldout(-2)'.padEnd(28)} ${belowCell(handwritten.map(shipped))}`,
  );

  console.log(`\n  False positives on ${NEWEST_SERVERS} (real servers never tuned on), shipped review`);
  const flagged = newest.filter((t) => shipped(t) < THRESHOLD);
  console.log(
    `    ${pct(flagged.length, newest.length)} (${flagged.length}/${newest.length} tools, ${new Set(newest.map((t) => t.source)).size} servers)`,
  );
  const byServer = new Map<string, number>();
  for (const tool of flagged) byServer.set(tool.source!, (byServer.get(tool.source!) ?? 0) + 1);
  for (const [server, count] of [...byServer].sort((a, b) => b[1] - a[1]))
    console.log(`      ${server.replace(/^npm:/, '').padEnd(56)} ${String(count).padStart(3)}`);

  console.log('\n  Leave one writer out: trained on the shipped set and the other writers, same procedure');
  const lowo = { attacks: [] as number[], benign: [] as number[] };
  for (const writer of names) {
    const score = modelScore(
      SentenceModel.fromData(trainCalibrated(trainingSetWithWriterRounds((t) => t.writer === writer))),
    );
    const attacks = writers.attacks.filter((t) => t.writer === writer);
    const benign = [...heldOutBenign, ...writers.benign.filter((t) => t.writer === writer)];
    console.log(line(writer, attacks, benign, score));
    for (const family of families)
      console.log(
        line(
          `  ${family}`,
          attacks.filter((t) => t.family === family),
          benign,
          score,
        ),
      );
    lowo.attacks.push(...attacks.map(score));
    lowo.benign.push(...benign.map(score));
  }
  // Each fold's attacks and benign tools scored by that fold's model (the held-out benign tools once per fold).
  console.log(
    `    ${'all writers, pooled'.padEnd(30)} ${belowCell(lowo.attacks)}   AUC ${fixed(auc(lowo.attacks, lowo.benign))}   ` +
      `at 3% FP ${detectionAtFp(lowo.attacks, lowo.benign)}`,
  );
}

/**
 * Leave one family out over the writer rounds (`npm run bench review-writer-families`), apart from
 * review-writers because its seven trainings take as long as the rest together.
 */
export async function runFamilies(): Promise<void> {
  const { writers, heldOutBenign, families, modelScore } = corpus();
  console.log('\n  Leave one family out: trained on the shipped set and every writer less the family, same procedure');
  for (const family of families) {
    const score = modelScore(
      SentenceModel.fromData(
        trainCalibrated(trainingSetWithWriterRounds((t, attack) => attack && t.family === family)),
      ),
    );
    console.log(
      line(
        family,
        writers.attacks.filter((t) => t.family === family),
        heldOutBenign,
        score,
      ),
    );
  }
}
