import { readingUnits } from '../model/sentence-model';

/** Universal Sentence Encoder-lite's output width. */
export const ENCODER_WIDTH = 512;
/**
 * A tool's features: its whole text, the element-wise max and mean over its sentences, its purpose (its name and
 * first sentence), and how far its other sentences stray from that purpose (the least and the mean cosine
 * similarity, and how many sentences there were): instructions about other tools or unrelated data are what a
 * poisoned tool adds to an ordinary one.
 */
export const ENCODER_FEATURES = ENCODER_WIDTH * 4 + 3;
/** Sentences embedded per tool: the description comes first, and a cap bounds the cost of a huge schema. */
export const MAX_SENTENCES = 32;
/** The whole-text embedding reads this much of the tool's text. */
export const WHOLE_TEXT_CHARS = 2_000;
/** Sentences embedded in one call of the model. */
const BATCH = 64;
/** What stands for a tool without any text. */
export const NO_TEXT = 'no description';

/** A tool as the encoder reads it: its name and every text a model reads of it (description first). */
export interface EncodedTool {
  name: string;
  texts: { text: string }[];
}

/** The part of the sentence encoder the features need (`EmbeddingsModel` of `@energetic-ai/embeddings`). */
export interface SentenceEmbedder {
  embed(input: string): Promise<number[]>;
  embed(input: string[]): Promise<number[][]>;
}

/** What the encoder reads of a tool: at most MAX_SENTENCES sentences, the first characters of them all, its purpose. */
export function unitsOf({ name, texts }: EncodedTool): { sentences: string[]; whole: string; purpose: string } {
  // The tokenizer gives an empty string (or one of punctuation alone) no token, which the model cannot take.
  // Texts are split only until the cap is reached: a schema with thousands of texts costs no more than a small one.
  const capped: string[] = [];
  for (const { text } of texts) {
    for (const sentence of readingUnits(text)) {
      if (!/[\p{L}\p{N}]/u.test(sentence)) continue;
      capped.push(sentence);
      if (capped.length === MAX_SENTENCES) break;
    }
    if (capped.length === MAX_SENTENCES) break;
  }
  const nameWords = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ');
  return {
    sentences: capped.length ? capped : [NO_TEXT],
    whole: capped.join(' ').slice(0, WHOLE_TEXT_CHARS),
    purpose: `${nameWords}: ${capped[0] ?? NO_TEXT}`,
  };
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
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
 * The features of one tool (ENCODER_FEATURES numbers): the whole text's embedding, the max and the mean of its
 * sentences' embeddings, its purpose's embedding, then the least and mean similarity of its other sentences to
 * that purpose and log(1 + sentences). The same code serves the service's encoder thread and the bench.
 */
export async function encoderFeatures(model: SentenceEmbedder, tool: EncodedTool): Promise<Float32Array> {
  const { sentences, whole, purpose } = unitsOf(tool);
  const vectors: number[][] = [];
  for (let i = 0; i < sentences.length; i += BATCH)
    vectors.push(...(await embedSome(model, sentences.slice(i, i + BATCH))));
  if (!vectors.length) vectors.push(...(await model.embed([NO_TEXT])));
  const [wholeVector, purposeVector] = await model.embed([whole || NO_TEXT, purpose]);
  const features = new Float32Array(ENCODER_FEATURES);
  features.set(wholeVector, 0);
  features.set(purposeVector, 3 * ENCODER_WIDTH);
  const strays = vectors.slice(1).map((v) => cosine(v, purposeVector));
  features[4 * ENCODER_WIDTH] = strays.length ? Math.min(...strays) : 1;
  features[4 * ENCODER_WIDTH + 1] = strays.length ? strays.reduce((a, b) => a + b, 0) / strays.length : 1;
  features[4 * ENCODER_WIDTH + 2] = Math.log1p(sentences.length);
  for (let d = 0; d < ENCODER_WIDTH; d++) {
    let max = -Infinity;
    let sum = 0;
    for (const v of vectors) {
      max = Math.max(max, v[d]);
      sum += v[d];
    }
    features[ENCODER_WIDTH + d] = max;
    features[2 * ENCODER_WIDTH + d] = sum / vectors.length;
  }
  return features;
}

/** Sentences embedded together, or one by one leaving out any the tokenizer finds no token in. */
async function embedSome(model: SentenceEmbedder, sentences: string[]): Promise<number[][]> {
  try {
    return await model.embed(sentences);
  } catch {
    const vectors: number[][] = [];
    for (const sentence of sentences) {
      try {
        vectors.push(await model.embed(sentence));
      } catch {
        // no token: nothing to read
      }
    }
    return vectors;
  }
}
