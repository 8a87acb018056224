import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_SENTENCES, NO_TEXT, unitsOf } from '../src/tools/catalog/review/encoder/encoder-features';
import { readingUnits } from '../src/tools/catalog/review/model/sentence-model';
import { shippedTrainingSet } from './support/review-corpus';
import { foldRowsOver, headTrainingSet, ToolEncoder, trainCalibratedEncoder } from './support/review-encoder';

const OUT = join(__dirname, '../../src/tools/catalog/review/encoder/encoder-head.data.ts');
/** Tools whose features and log-odds the parity spec (encoder-parity.spec.ts) recomputes through the service's code. */
const PARITY_OUT = join(__dirname, '../../test/fixtures/review-encoder/parity.json');

/**
 * `npm run train:review-encoder`: trains the sentence encoder's calibrated head exactly as
 * `npm run bench review-encoder` does for its shipped head (the writer rounds and every fourth other tool of the
 * shipped training set, thresholds from out-of-fold benign logits) and writes it to
 * src/tools/catalog/review/encoder/encoder-head.data.ts. Deterministic: the same fixtures give the same file.
 * Not checked in CI like the sentence model (check:review-model): embedding the training set takes about 20 minutes
 * without the embeddings cached under .cache/review-encoder/, training the head then takes seconds.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const training = headTrainingSet();
  const features = await new ToolEncoder().features(training);
  const rows = foldRowsOver(training, features)(shippedTrainingSet());
  const { head } = trainCalibratedEncoder(rows);
  const data = head.toData();
  writeFileSync(
    OUT,
    `import type { EncoderHeadData } from './encoder-head';\n\n` +
      `/** Written by \`npm run train:review-encoder\` from the review fixtures; do not edit. */\n` +
      `export const ENCODER_HEAD: EncoderHeadData = ${JSON.stringify(data)};\n`,
  );
  // An attack and a benign tool, one past the sentence cap, one with no readable text (if the set has them).
  const parity = [
    training.findIndex((t) => t.attack && t.source.startsWith('writer:')),
    training.findIndex((t) => !t.attack),
    training.findIndex((t) => t.texts.flatMap(({ text }) => readingUnits(text)).length > 2 * MAX_SENTENCES),
    training.findIndex((t) => unitsOf(t).sentences[0] === NO_TEXT),
  ].filter((i, at, all) => i >= 0 && all.indexOf(i) === at);
  mkdirSync(join(PARITY_OUT, '..'), { recursive: true });
  writeFileSync(
    PARITY_OUT,
    JSON.stringify(
      parity.map((i) => ({
        name: training[i].name,
        texts: training[i].texts.map((t) => t.text),
        features: Buffer.from(features[i].buffer, features[i].byteOffset, features[i].byteLength).toString('base64'),
        logit: head.logit(features[i]),
      })),
      null,
      1,
    ) + '\n',
  );
  console.log(
    `Trained on ${rows.length} tools (${rows.filter((r) => r.attack).length} attacks) in ${Date.now() - started} ms: ` +
      `flag ${data.flag.toFixed(3)}, strong ${data.strong.toFixed(3)} -> ${OUT}`,
  );
}

void main();
