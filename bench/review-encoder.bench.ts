import { autoReviewWithout, reviewedTexts } from '../src/tools/catalog/auto-review';
import { SentenceModel } from '../src/tools/catalog/review/model/sentence-model';
import {
  type CorpusTool,
  blindRounds,
  HELDOUT_ATTACKS,
  HELDOUT_BENIGN_HANDWRITTEN,
  HELDOUT_BENIGN_SERVERS,
  loadCorpus,
  reviewCatalog,
  shippedTrainingSet,
  subjectOf,
  trainingSetWithWriterRounds,
  writerRounds,
} from './support/review-corpus';
import { trainCalibrated } from './support/review-model-training';
import {
  type CalibratedEncoder,
  foldRowsOver,
  headTrainingSet,
  ToolEncoder,
  trainCalibratedEncoder,
} from './support/review-encoder';
import { auc, belowCell, detectionAtFp, detectionAtFpOfSuspicion, fixed, remembered } from './support/review-scoring';

type Score = (tool: CorpusTool) => number;

/**
 * Detection below the review threshold (and the benign tools below it: false positives there), AUC and detection at
 * 3% false positives, without and with the encoder, on one line each.
 */
function compare(label: string, attacks: CorpusTool[], benign: CorpusTool[], scores: Record<string, Score>): void {
  console.log(`    ${label}`);
  for (const [name, score] of Object.entries(scores)) {
    const a = attacks.map(score);
    const b = benign.map(score);
    console.log(
      `      ${name.padEnd(22)} ${belowCell(a)} (benign ${belowCell(b).trim()})   AUC ${fixed(auc(a, b))}   ` +
        `at 3% FP ${detectionAtFp(a, b)}`,
    );
  }
}

/** The corpus embedded once, and scorers built over it. */
async function setUp() {
  const encoder = new ToolEncoder();
  const { catalogFor } = reviewCatalog();
  const writers = writerRounds();
  const blind = blindRounds();
  const heldOutBenign = [...HELDOUT_BENIGN_SERVERS, ...HELDOUT_BENIGN_HANDWRITTEN].flatMap(loadCorpus);
  const unseenRounds = HELDOUT_ATTACKS.flatMap(loadCorpus);
  const evaluated = [
    ...writers.attacks,
    ...writers.benign,
    ...heldOutBenign,
    ...unseenRounds,
    ...blind.attacks,
    ...blind.benign,
  ];
  const training = headTrainingSet();

  const encoded = (tool: CorpusTool) => ({ name: tool.name, texts: reviewedTexts(subjectOf(tool)) });
  const started = performance.now();
  const evaluatedFeatures = await encoder.features(evaluated.map(encoded));
  const trainingFeatures = await encoder.features(training);
  const featuresOf = new Map<CorpusTool, Float32Array>(evaluated.map((tool, i) => [tool, evaluatedFeatures[i]]));
  console.log(
    `\n  Embedded ${evaluated.length + training.length} tools in ${((performance.now() - started) / 1000).toFixed(0)} s ` +
      `(${encoder.spent.tools} not cached: ${encoder.spent.tools ? (encoder.spent.ms / encoder.spent.tools).toFixed(0) : '-'} ms a tool)`,
  );

  /** The review with a sentence model of a fold, or the shipped one (undefined). */
  const reviewScore = (model: SentenceModel | undefined) =>
    remembered((tool) => autoReviewWithout(subjectOf(tool), catalogFor(tool), [], model).score);
  const withEncoder = (score: Score, head: CalibratedEncoder) =>
    remembered((tool) => head.combine(score(tool), featuresOf.get(tool)!));
  const logitOf = (head: CalibratedEncoder) => (tool: CorpusTool) => head.logit(featuresOf.get(tool)!);
  const foldRows = foldRowsOver(training, trainingFeatures);
  return { encoder, writers, blind, heldOutBenign, unseenRounds, reviewScore, withEncoder, logitOf, foldRows };
}

/**
 * The pretrained sentence encoder stacked on the review (`npm run bench review-encoder`): Universal Sentence
 * Encoder-lite embeds each tool (the whole text, and the max and mean over at most 32 sentences); a logistic head
 * over those, calibrated on benign servers' out-of-fold readings like the sentence model, adds a finding. Measured on
 * what no part of it was trained on:
 * - rounds 9 to 13 against the held-out benign tools, shipped review with and without the head (trained on the
 *   shipped training set's writer rounds and a quarter of the rest);
 * - the blind rounds (blind-*.json), likewise.
 * Leave one writer out is `npm run bench review-encoder-writers`, leave one family out
 * `npm run bench review-encoder-families`.
 */
export async function run(): Promise<void> {
  const s = await setUp();
  const review = s.reviewScore(undefined);
  const head = trainCalibratedEncoder(s.foldRows(shippedTrainingSet()));
  console.log('\n  Rounds 9 to 13 (never trained on) against the held-out benign tools');
  compare('attack-heldout-9 to -13.json', s.unseenRounds, s.heldOutBenign, {
    review: review,
    'review + encoder': s.withEncoder(review, head),
  });
  const logit = s.logitOf(head);
  console.log(
    `      ${'encoder alone'.padEnd(22)} AUC ${fixed(
      auc(
        s.unseenRounds.map((t) => -logit(t)),
        s.heldOutBenign.map((t) => -logit(t)),
      ),
    )}   ` + `at 3% FP ${detectionAtFpOfSuspicion(s.unseenRounds.map(logit), s.heldOutBenign.map(logit))}`,
  );

  console.log(
    '\n  Blind rounds (blind-*.json: never trained or tuned on), benign side held-out tools and their counter-examples',
  );
  compare('blind-*.json', s.blind.attacks, [...s.heldOutBenign, ...s.blind.benign], {
    review: review,
    'review + encoder': s.withEncoder(review, head),
  });
  for (const family of [...new Set(s.blind.attacks.map((t) => t.family!))])
    compare(
      `  ${family}`,
      s.blind.attacks.filter((t) => t.family === family),
      [...s.heldOutBenign, ...s.blind.benign],
      { review: review, 'review + encoder': s.withEncoder(review, head) },
    );
  const blindLogits = {
    attacks: s.blind.attacks.map(logit),
    benign: [...s.heldOutBenign, ...s.blind.benign].map(logit),
  };
  console.log(
    `      ${'encoder alone'.padEnd(22)} AUC ${fixed(
      auc(
        blindLogits.attacks.map((z) => -z),
        blindLogits.benign.map((z) => -z),
      ),
    )}   ` + `at 3% FP ${detectionAtFpOfSuspicion(blindLogits.attacks, blindLogits.benign)}`,
  );
  console.log(
    `\n  Encoder cost: ${s.encoder.spent.tools ? `${(s.encoder.spent.ms / s.encoder.spent.tools).toFixed(0)} ms a tool over ${s.encoder.spent.tools} tools, ` : ''}` +
      `resident memory ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB with the model loaded`,
  );
}

/**
 * Leave one writer out over the writer rounds (`npm run bench review-encoder-writers`): sentence model and head both
 * trained without that writer, reviewing the writer's round against the held-out benign tools and the writer's
 * counter-examples.
 */
export async function runWriters(): Promise<void> {
  const s = await setUp();
  console.log('\n  Leave one writer out: sentence model and encoder head trained without the writer');
  const pooled: Record<string, { attacks: number[]; benign: number[] }> = {
    review: { attacks: [], benign: [] },
    'review + encoder': { attacks: [], benign: [] },
  };
  for (const writer of [...new Set(s.writers.attacks.map((t) => t.writer!))]) {
    const fold = trainingSetWithWriterRounds((t) => t.writer === writer);
    const foldReview = s.reviewScore(SentenceModel.fromData(trainCalibrated(fold)));
    const scores = {
      review: foldReview,
      'review + encoder': s.withEncoder(foldReview, trainCalibratedEncoder(s.foldRows(fold))),
    };
    const attacks = s.writers.attacks.filter((t) => t.writer === writer);
    const benign = [...s.heldOutBenign, ...s.writers.benign.filter((t) => t.writer === writer)];
    compare(writer, attacks, benign, scores);
    for (const [name, score] of Object.entries(scores)) {
      pooled[name].attacks.push(...attacks.map(score));
      pooled[name].benign.push(...benign.map(score));
    }
  }
  console.log('    all writers, pooled');
  for (const [name, { attacks, benign }] of Object.entries(pooled))
    console.log(
      `      ${name.padEnd(22)} ${belowCell(attacks)}   AUC ${fixed(auc(attacks, benign))}   at 3% FP ${detectionAtFp(attacks, benign)}`,
    );
}

/**
 * Leave one family out over the writer rounds (`npm run bench review-encoder-families`): sentence model and head
 * trained on everything but that family's attacks (of every writer), reviewing that family against the held-out
 * benign tools.
 */
export async function runFamilies(): Promise<void> {
  const s = await setUp();
  console.log('\n  Leave one family out: sentence model and encoder head trained without the family');
  const pooled: Record<string, { attacks: number[]; benign: number[] }> = {
    review: { attacks: [], benign: [] },
    'review + encoder': { attacks: [], benign: [] },
  };
  for (const family of [...new Set(s.writers.attacks.map((t) => t.family!))]) {
    const fold = trainingSetWithWriterRounds((t, attack) => attack && t.family === family);
    const foldReview = s.reviewScore(SentenceModel.fromData(trainCalibrated(fold)));
    const scores = {
      review: foldReview,
      'review + encoder': s.withEncoder(foldReview, trainCalibratedEncoder(s.foldRows(fold))),
    };
    const attacks = s.writers.attacks.filter((t) => t.family === family);
    compare(family, attacks, s.heldOutBenign, scores);
    for (const [name, score] of Object.entries(scores)) {
      pooled[name].attacks.push(...attacks.map(score));
      pooled[name].benign.push(...s.heldOutBenign.map(score));
    }
  }
  console.log('    all families, pooled');
  for (const [name, { attacks, benign }] of Object.entries(pooled))
    console.log(
      `      ${name.padEnd(22)} ${belowCell(attacks)}   AUC ${fixed(auc(attacks, benign))}   at 3% FP ${detectionAtFp(attacks, benign)}`,
    );
}
