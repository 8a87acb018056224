import { FEATURE_BITS, sentenceFeatures } from '../../src/tools/catalog/review/model/features';
import {
  SentenceModel,
  type SentenceModelData,
  encodeWeights,
  featureScale,
  readingUnits,
} from '../../src/tools/catalog/review/model/sentence-model';

/** A tool the sentence model learns from: every text a model reads of it, and whether it was poisoned. */
export interface TrainingTool {
  texts: { where: string; text: string }[];
  attack: boolean;
}

export interface TrainedWeights {
  bias: number;
  weights: Map<number, number>;
}

export interface TrainingOptions {
  epochs?: number;
  /** Rounds of re-picking the poisoned sentences of each poisoned tool (see trainSentenceModel). */
  rounds?: number;
  learningRate?: number;
  l2?: number;
  /** Weight of a poisoned sentence against a benign one. */
  positiveWeight?: number;
  seed?: number;
  /** Features in fewer sentences than this are left out. */
  minFrequency?: number;
}

interface Unit {
  sentence: string;
  features: number[];
  scale: number;
}

/**
 * Trains the sentence model: logistic regression over hashed binary features, by AdaGrad. Written here rather
 * than taken from a library because the data is a few hundred thousand sparse features over some ten thousand
 * sentences, which the JavaScript machine-learning libraries only take as dense matrices.
 *
 * Labels are known per tool, not per sentence: a poisoned tool is mostly a benign description with one or two
 * bad sentences. So training runs in rounds (multiple-instance learning): first the sentence of each poisoned
 * tool with the most features no benign sentence has counts as poisoned; then, each round, the sentences the
 * current model finds most suspicious in each poisoned tool do, and the model is trained again from zero.
 * Deterministic: a seeded shuffle.
 */
export function trainSentenceModel(tools: TrainingTool[], options: TrainingOptions = {}): TrainedWeights {
  const {
    epochs = 8,
    rounds = 2,
    learningRate = 0.3,
    l2 = 1e-6,
    positiveWeight = 1,
    seed = 1,
    minFrequency = 5,
  } = options;
  const unitsOf = tools.map((tool) =>
    tool.texts
      .flatMap(({ text }) => readingUnits(text))
      .map((sentence): Unit => {
        const features = featuresOf(sentence);
        return { sentence, features, scale: featureScale(features.length) };
      }),
  );
  // Features of a single sentence say nothing beyond it and would be most of the model: dropped.
  const frequency = new Map<number, number>();
  for (const units of unitsOf)
    for (const unit of units) for (const f of unit.features) frequency.set(f, (frequency.get(f) ?? 0) + 1);
  for (const units of unitsOf)
    for (const unit of units) unit.features = unit.features.filter((f) => frequency.get(f)! >= minFrequency);
  const negatives: [Unit, number, number][] = [];
  const benignFeatures = new Set<number>();
  const benignSentences = new Set<string>();
  tools.forEach((tool, i) => {
    if (tool.attack) return;
    for (const unit of unitsOf[i]) {
      negatives.push([unit, 0, 1]);
      benignSentences.add(unit.sentence);
      for (const f of unit.features) benignFeatures.add(f);
    }
  });
  // A sentence a benign tool has is never the poisoned one (attacks copy real descriptions), and a sentence
  // many poisoned tools share (the same base description) counts once.
  const candidatesOf = unitsOf.map((units) => units.filter((unit) => !benignSentences.has(unit.sentence)));

  let model: SentenceModel | undefined;
  let trained: TrainedWeights | undefined;
  for (let round = 0; round <= rounds; round++) {
    const positives: [Unit, number, number][] = [];
    const picked = new Set<string>();
    const pick = (unit: Unit) => {
      if (picked.has(unit.sentence)) return;
      picked.add(unit.sentence);
      positives.push([unit, 1, positiveWeight]);
    };
    tools.forEach((tool, i) => {
      const units = candidatesOf[i];
      if (!tool.attack || !units.length) return;
      if (!model) {
        // First round: the sentences least like any benign sentence (the injected text is new; the tool's
        // own description reads like a thousand benign ones).
        const novelty = units.map(
          (unit) => unit.features.filter((f) => !benignFeatures.has(f)).length / (unit.features.length || 1),
        );
        const top = Math.max(...novelty);
        units.forEach((unit, j) => {
          if (novelty[j] === top) pick(unit);
        });
        return;
      }
      const logits = units.map((unit) => model!.logitOfFeatures(unit.features, unit.scale));
      const top = Math.max(...logits);
      units.forEach((unit, j) => {
        if (logits[j] === top || logits[j] > 0) pick(unit);
      });
    });
    trained = fit([...negatives, ...positives], { epochs, learningRate, l2, seed });
    model = SentenceModel.fromWeights(trained.bias, trained.weights);
  }
  return trained!;
}

/** Features per sentence, kept across trainings: the held-out protocol trains a dozen models on one corpus. */
const featureCache = new Map<string, number[]>();
function featuresOf(sentence: string): number[] {
  let features = featureCache.get(sentence);
  if (!features) featureCache.set(sentence, (features = sentenceFeatures(sentence)));
  return features;
}

function logitOfDense(bias: number, weights: Float64Array, unit: Unit): number {
  let sum = 0;
  for (const feature of unit.features) sum += weights[feature];
  return bias + sum * unit.scale;
}

function fit(
  examples: [Unit, number, number][],
  { epochs, learningRate, l2, seed }: { epochs: number; learningRate: number; l2: number; seed: number },
): TrainedWeights {
  // Dense while training (a few megabytes, and far faster than maps); sparse once trained.
  const weights = new Float64Array(1 << FEATURE_BITS);
  const squared = new Float64Array(1 << FEATURE_BITS).fill(1e-8);
  let bias = 0;
  let biasSquared = 1e-8;
  const order = examples.map((_, i) => i);
  const random = seeded(seed);
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const index of order) {
      const [unit, label, weight] = examples[index];
      const logit = logitOfDense(bias, weights, unit);
      const gradient = weight * (1 / (1 + Math.exp(-logit)) - label);
      biasSquared += gradient * gradient;
      bias -= (learningRate * gradient) / Math.sqrt(biasSquared);
      for (const feature of unit.features) {
        const g = gradient * unit.scale + l2 * weights[feature];
        squared[feature] += g * g;
        weights[feature] -= (learningRate * g) / Math.sqrt(squared[feature]);
      }
    }
  }
  const sparse = new Map<number, number>();
  weights.forEach((w, feature) => {
    if (Math.abs(w) >= 1e-3) sparse.set(feature, Math.fround(w));
  });
  return { bias, weights: sparse };
}

/** mulberry32: a small seeded generator, so that training is repeatable. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A tool of the training data, with the server it came from (benign tools are held out by server). */
export interface SourcedTrainingTool extends TrainingTool {
  source: string;
  /** The tool's name (the sentence model does not read it; the encoder evaluation does). */
  name: string;
}

/** Benign tools that reach the flag logit, and that reach the strong one (out of fold, see trainCalibrated). */
export const FLAG_RATE = 0.05;
export const STRONG_RATE = 0.01;
const CALIBRATION_FOLDS = 4;

/**
 * Trains the shipped form of the model: weights from all the tools, and the two thresholds from out-of-fold
 * scores of the benign tools. Each fold leaves a quarter of the benign servers out, trains on the rest and
 * scores the servers it left out, so the thresholds are what a server the model never saw would reach.
 */
export function trainCalibrated(tools: SourcedTrainingTool[], options: TrainingOptions = {}): SentenceModelData {
  const servers = [...new Set(tools.filter((t) => !t.attack).map((t) => t.source))].sort();
  const outOfFold: number[] = [];
  for (let fold = 0; fold < CALIBRATION_FOLDS; fold++) {
    const out = new Set(servers.filter((_, i) => i % CALIBRATION_FOLDS === fold));
    const trained = trainSentenceModel(
      tools.filter((t) => t.attack || !out.has(t.source)),
      options,
    );
    const model = SentenceModel.fromWeights(trained.bias, trained.weights);
    for (const tool of tools)
      if (!tool.attack && out.has(tool.source)) outOfFold.push(model.mostSuspicious(tool.texts)?.logit ?? -Infinity);
  }
  outOfFold.sort((a, b) => b - a);
  const at = (rate: number) => outOfFold[Math.min(outOfFold.length - 1, Math.floor(outOfFold.length * rate))];
  const { bias, weights } = trainSentenceModel(tools, options);
  return { bias, weights: encodeWeights(weights), flag: at(FLAG_RATE), strong: at(STRONG_RATE) };
}
