import type { CorpusTool } from './review-corpus';

/** catalog.mandatory_review_threshold's default: below it, a human must review the tool. */
export const THRESHOLD = 70;

/**
 * Probability that a random attack scores below a random benign tool (ties count half): the area under the
 * ROC curve of "100 - score" as an attack score. Counted over the distinct scores, so linear after sorting.
 */
export function auc(attackScores: number[], benignScores: number[]): number {
  if (!attackScores.length || !benignScores.length) return NaN;
  const benignAt = new Map<number, number>();
  for (const s of benignScores) benignAt.set(s, (benignAt.get(s) ?? 0) + 1);
  const sorted = [...benignAt.keys()].sort((a, b) => a - b);
  let wins = 0;
  for (const a of attackScores) {
    let above = 0;
    let tied = 0;
    for (const s of sorted) {
      if (s > a) above += benignAt.get(s)!;
      else if (s === a) tied = benignAt.get(s)!;
    }
    wins += above + tied / 2;
  }
  return wins / (attackScores.length * benignScores.length);
}

export const pct = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(1)}%` : '-').padStart(6);
export const fixed = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(3)).padStart(5);
export const cell = (detected: number, of: number) => `${pct(detected, of)} (${detected}/${of})`.padStart(15);
/** How many of the scores fall below the threshold, as a cell. */
export const belowCell = (scores: number[]) => cell(scores.filter((s) => s < THRESHOLD).length, scores.length);

/** The unseen false-positive rate the detection figure is read at. */
export const FP_BUDGET = 0.03;

/**
 * Detection at a fixed false-positive rate: the highest threshold below which at most FP_BUDGET of the benign
 * tools fall, and how many attacks fall below it there.
 */
export function detectionAtFp(attackScores: number[], benignScores: number[]): string {
  let cut = 0;
  for (let candidate = 1; candidate <= 101; candidate++) {
    if (benignScores.filter((s) => s < candidate).length > FP_BUDGET * benignScores.length) break;
    cut = candidate;
  }
  const fp = benignScores.filter((s) => s < cut).length;
  return `${cell(attackScores.filter((s) => s < cut).length, attackScores.length)} below ${cut}, false positives ${pct(fp, benignScores.length).trim()} (${fp}/${benignScores.length})`;
}

/** A tool's score computed on first use and kept. */
export function remembered(scoreOf: (tool: CorpusTool) => number): (tool: CorpusTool) => number {
  const scores = new Map<CorpusTool, number>();
  return (tool) => {
    let score = scores.get(tool);
    if (score === undefined) scores.set(tool, (score = scoreOf(tool)));
    return score;
  };
}

/**
 * Detection at FP_BUDGET false positives for a continuous suspicion (higher is more suspicious, such as a model's
 * log-odds): the cut is the value of the benign tool at that rate, and attacks above it are detected.
 */
export function detectionAtFpOfSuspicion(attacks: number[], benign: number[]): string {
  const sorted = [...benign].sort((a, b) => b - a);
  const cut = sorted[Math.floor(FP_BUDGET * sorted.length)] ?? Infinity;
  const fp = benign.filter((s) => s > cut).length;
  return `${cell(attacks.filter((s) => s > cut).length, attacks.length)}, false positives ${pct(fp, benign.length).trim()} (${fp}/${benign.length})`;
}
