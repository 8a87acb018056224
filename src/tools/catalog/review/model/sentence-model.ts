import { sentences } from '../text';
import { MAX_SENTENCE, sentenceFeatures } from './features';

/** A trained sentence model as shipped (sentence-model.data.ts) and as the trainer writes it. */
export interface SentenceModelData {
  bias: number;
  /**
   * Sparse weights: little-endian pairs of a uint32 feature index and a float32 weight, in hex (base64 of this
   * much data spells words by chance, such as the markers that flag unfinished code; hex spells none).
   */
  weights: string;
  /** Logits at or above this flag a sentence for the reviewer: about 1 in 20 benign tools reach it. */
  flag: number;
  /** Logits at or above this take a tool below the approval threshold alone: about 1 in 100 benign tools. */
  strong: number;
}

export interface SuspiciousSentence {
  where: string;
  sentence: string;
  logit: number;
}

/**
 * A logistic model over the features of one sentence (features.ts), trained on poisoned and benign tool
 * definitions (`npm run train:review-model`). It reads every sentence a model would read, and the most
 * suspicious sentence stands for the tool: a poisoned tool is a benign one with one bad sentence added.
 * Scoring costs the length of the texts.
 */
export class SentenceModel {
  private constructor(
    private readonly bias: number,
    private readonly weights: Map<number, number>,
    readonly flag: number,
    readonly strong: number,
  ) {}

  static fromData(data: SentenceModelData): SentenceModel {
    const bytes = Buffer.from(data.weights, 'hex');
    const weights = new Map<number, number>();
    for (let offset = 0; offset + 8 <= bytes.length; offset += 8)
      weights.set(bytes.readUInt32LE(offset), bytes.readFloatLE(offset + 4));
    return new SentenceModel(data.bias, weights, data.flag, data.strong);
  }

  static fromWeights(bias: number, weights: Map<number, number>, flag = Infinity, strong = Infinity): SentenceModel {
    return new SentenceModel(bias, weights, flag, strong);
  }

  /** The log-odds that the sentence was written to poison a tool. */
  logit(sentence: string): number {
    const features = sentenceFeatures(sentence);
    return this.logitOfFeatures(features, featureScale(features.length));
  }

  /** The log-odds of a sentence already read into features (the trainer keeps them across rounds). */
  logitOfFeatures(features: readonly number[], scale: number): number {
    let sum = 0;
    for (const feature of features) sum += this.weights.get(feature) ?? 0;
    return this.bias + sum * scale;
  }

  /** The most suspicious sentence of the texts (undefined when there is none). */
  mostSuspicious(texts: { where: string; text: string }[]): SuspiciousSentence | undefined {
    let worst: SuspiciousSentence | undefined;
    for (const { where, text } of texts)
      for (const sentence of readingUnits(text)) {
        const logit = this.logit(sentence);
        if (!worst || logit > worst.logit) worst = { where, sentence, logit };
      }
    return worst;
  }
}

/**
 * Binary features scaled to about unit length, so that a long sentence is not more suspicious for being long;
 * the floor keeps a word or two (an enum value, a title) from weighing as much as a whole order.
 */
export function featureScale(count: number): number {
  return 1 / Math.sqrt(Math.max(count, MIN_FEATURES));
}
const MIN_FEATURES = 16;

/** The sentences of a text, any longer than the model reads cut into pieces it reads whole. */
export function readingUnits(text: string): string[] {
  const units: string[] = [];
  for (const sentence of sentences(text ?? ''))
    for (let start = 0; start < sentence.length; start += MAX_SENTENCE)
      units.push(sentence.slice(start, start + MAX_SENTENCE));
  return units;
}

/** Sparse weights in the shipped form. */
export function encodeWeights(weights: Map<number, number>): string {
  const bytes = Buffer.alloc(weights.size * 8);
  let offset = 0;
  for (const [index, weight] of [...weights].sort((a, b) => a[0] - b[0])) {
    bytes.writeUInt32LE(index, offset);
    bytes.writeFloatLE(weight, offset + 4);
    offset += 8;
  }
  return bytes.toString('hex');
}
