import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SENTENCE_MODEL } from '../src/tools/catalog/review/model/sentence-model.data';
import { shippedTrainingSet } from './support/review-corpus';
import { trainCalibrated } from './support/review-model-training';

const OUT = join(__dirname, '../../src/tools/catalog/review/model/sentence-model.data.ts');

/**
 * `npm run train:review-model`: trains the automated review's sentence model on the review fixtures
 * (review-corpus.ts says which) and writes it to src/tools/catalog/review/model/sentence-model.data.ts.
 * Deterministic: the same fixtures give the same file. With `--check` (`npm run check:review-model`, run by CI)
 * it writes nothing and fails unless the shipped model is exactly what the fixtures train.
 */
function main(): void {
  const started = Date.now();
  const tools = shippedTrainingSet();
  const model = trainCalibrated(tools);
  const weights = model.weights.length / 16;
  const summary =
    `${tools.length} tools (${tools.filter((t) => t.attack).length} attacks) in ${Date.now() - started} ms: ` +
    `${weights} weights, flag ${model.flag.toFixed(3)}, strong ${model.strong.toFixed(3)}`;
  if (process.argv.includes('--check')) {
    if (JSON.stringify(model) !== JSON.stringify(SENTENCE_MODEL)) {
      console.error(
        `The shipped sentence model is not what the fixtures train (${summary}): npm run train:review-model`,
      );
      process.exit(1);
    }
    console.log(`The shipped sentence model is what the fixtures train: ${summary}`);
    return;
  }
  writeFileSync(
    OUT,
    `import type { SentenceModelData } from './sentence-model';\n\n` +
      `/** Written by \`npm run train:review-model\` from the review fixtures; do not edit. */\n` +
      `export const SENTENCE_MODEL: SentenceModelData = ${JSON.stringify(model)};\n`,
  );
  console.log(`Trained on ${summary} -> ${OUT}`);
}

main();
