import { ENCODER_FEATURES } from './encoder-features';

/** The head in its shipped form (encoder-head.data.ts): Float32 arrays as base64, the rest as numbers. */
export interface EncoderHeadData {
  /** Per feature: the training mean, and the inverse of the standard deviation. */
  mean: string;
  scale: string;
  weights: string;
  bias: number;
  /** Log-odds reached by 5% of benign servers' tools (out of fold): a weak reading. */
  flag: number;
  /** Log-odds reached by 1% of them: a strong reading. */
  strong: number;
}

/** Per feature: the training mean, the inverse of the standard deviation and the weight; then the bias. */
export interface EncoderHeadParts {
  mean: ArrayLike<number>;
  scale: ArrayLike<number>;
  weights: ArrayLike<number>;
  bias: number;
}

export type EncoderReading = 'strong' | 'weak' | null;

/**
 * The inference half of the logistic head over the sentence encoder's features: standardise, dot product, bias.
 * Training lives with the bench (bench/support/review-encoder.ts); both read the features of encoder-features.ts.
 */
export class EncoderHead {
  private constructor(
    readonly parts: EncoderHeadParts,
    readonly flag: number,
    readonly strong: number,
  ) {}

  /** A head from its numbers; without thresholds it never reads a tool as poisoned. */
  static of(parts: EncoderHeadParts, flag = Infinity, strong = Infinity): EncoderHead {
    for (const [name, values] of Object.entries({ mean: parts.mean, scale: parts.scale, weights: parts.weights }))
      if (values.length !== ENCODER_FEATURES)
        throw new Error(`the encoder head's ${name} has ${values.length} values, not ${ENCODER_FEATURES}`);
    return new EncoderHead(parts, flag, strong);
  }

  static fromData(data: EncoderHeadData): EncoderHead {
    return EncoderHead.of(
      { mean: decode(data.mean), scale: decode(data.scale), weights: decode(data.weights), bias: data.bias },
      data.flag,
      data.strong,
    );
  }

  /** The shipped form of this head. */
  toData(): EncoderHeadData {
    const { mean, scale, weights, bias } = this.parts;
    return {
      mean: encodeFloats(mean),
      scale: encodeFloats(scale),
      weights: encodeFloats(weights),
      bias,
      flag: this.flag,
      strong: this.strong,
    };
  }

  /** The head's log-odds that the tool is poisoned. */
  logit(features: ArrayLike<number>): number {
    const { mean, scale, weights, bias } = this.parts;
    let z = bias;
    for (let j = 0; j < ENCODER_FEATURES; j++) z += weights[j] * (features[j] - mean[j]) * scale[j];
    return z;
  }

  reading(logit: number): EncoderReading {
    if (logit >= this.strong) return 'strong';
    if (logit >= this.flag) return 'weak';
    return null;
  }
}

function encodeFloats(values: ArrayLike<number>): string {
  return Buffer.from(Float32Array.from(values).buffer).toString('base64');
}

function decode(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const values = new Float32Array(bytes.length / 4);
  Buffer.from(values.buffer).set(bytes);
  return values;
}

/** The sentence model's penalties (review/learned.check.ts), so that the encoder weighs as much as it. */
const STRONG_PENALTY = 35;
const FLAG_PENALTY = 20;

/**
 * A review score with the encoder's reading added, as a finding of the sentence model is: a strong reading takes
 * 35 points alone, a weak one 20 only beside another finding (a score already below 100).
 */
export function scoreWithEncoder(score: number, reading: EncoderReading): number {
  if (reading === 'strong') return Math.max(0, score - STRONG_PENALTY);
  if (reading === 'weak' && score < 100) return Math.max(0, score - FLAG_PENALTY);
  return score;
}
