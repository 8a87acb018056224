import { autoReview } from '../src/tools/catalog/auto-review';
import {
  blindRounds,
  type CorpusTool,
  HELDOUT_BENIGN_HANDWRITTEN,
  HELDOUT_BENIGN_SERVERS,
  loadCorpus,
  reviewCatalog,
  subjectOf,
} from './support/review-corpus';
import { auc, belowCell, detectionAtFp, fixed, remembered } from './support/review-scoring';

/**
 * The blind rounds (`npm run bench review-blind`): `blind-*.json`, written by an incident analyst and a growth
 * product manager in the six families the independent evaluation found weakest, with counter-examples in the same
 * voices, scored by the shipped review. Nothing was tuned on them; their first score is kept in
 * bench/results/review-blind-rounds-first-score.txt. The benign side: the held-out benign tools (real servers no
 * model was trained on, and hand-written ones) and the round's own counter-examples.
 */
export async function run(): Promise<void> {
  const { catalogFor } = reviewCatalog();
  const score = remembered((tool: CorpusTool) => autoReview(subjectOf(tool), catalogFor(tool)).score);
  const blind = blindRounds();
  const heldOut = [...HELDOUT_BENIGN_SERVERS, ...HELDOUT_BENIGN_HANDWRITTEN].flatMap(loadCorpus);
  const benign = [...heldOut, ...blind.benign];
  const line = (label: string, attacks: CorpusTool[], against: CorpusTool[]) => {
    const a = attacks.map(score);
    const b = against.map(score);
    console.log(`    ${label.padEnd(30)} ${belowCell(a)}   AUC ${fixed(auc(a, b))}   at 3% FP ${detectionAtFp(a, b)}`);
  };
  console.log('\nBlind rounds, shipped review (threshold 70)');
  for (const writer of [...new Set(blind.attacks.map((t) => t.writer!))]) {
    const own = blind.benign.filter((t) => t.writer === writer);
    line(
      writer,
      blind.attacks.filter((t) => t.writer === writer),
      [...heldOut, ...own],
    );
    console.log(`      false positives on the writer's counter-examples ${belowCell(own.map(score))}`);
  }
  line('all', blind.attacks, benign);
  for (const family of [...new Set(blind.attacks.map((t) => t.family!))])
    line(
      `  ${family}`,
      blind.attacks.filter((t) => t.family === family),
      benign,
    );
}
