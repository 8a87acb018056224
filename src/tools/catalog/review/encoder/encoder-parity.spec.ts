import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENCODER_FEATURES } from './encoder-features';
import { EncoderHead } from './encoder-head';
import { ENCODER_HEAD } from './encoder-head.data';
import { EncoderThread } from './encoder-thread';

/** Tools of the training set with the features and log-odds the bench computed for them (train:review-encoder). */
const PARITY: { name: string; texts: string[]; features: string; logit: number }[] = JSON.parse(
  readFileSync(join(__dirname, '../../../../../test/fixtures/review-encoder/parity.json'), 'utf8'),
);

function decode(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const values = new Float32Array(bytes.length / 4);
  Buffer.from(values.buffer).set(bytes);
  return values;
}

describe('sentence encoder: the service computes what the bench trained on', () => {
  const thread = new EncoderThread();
  afterAll(() => thread.close());

  it.each(PARITY.map((tool) => [tool.name, tool] as const))(
    '%s: same features through the encoder thread, same log-odds through the shipped head',
    async (_name, tool) => {
      const expected = decode(tool.features);
      const features = await thread.features({ name: tool.name, texts: tool.texts.map((text) => ({ text })) });
      expect(features).toHaveLength(ENCODER_FEATURES);
      let worst = 0;
      for (let i = 0; i < ENCODER_FEATURES; i++) worst = Math.max(worst, Math.abs(features[i] - expected[i]));
      expect(worst).toBeLessThan(1e-5);
      // The shipped head stores its numbers as float32: the log-odds move in the last digits only.
      expect(EncoderHead.fromData(ENCODER_HEAD).logit(features)).toBeCloseTo(tool.logit, 3);
    },
  );
});
