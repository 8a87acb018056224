import type { Findings } from './findings';
import { SENTENCE_MODEL } from './model/sentence-model.data';
import { SentenceModel } from './model/sentence-model';
import { excerpt } from './text';

/** A sentence the model is sure of takes a tool below the approval threshold alone (100 - 35 = 65). */
const STRONG_PENALTY = 35;
/** One it finds suspicious only counts with another finding (100 - 20 = 80). */
const FLAG_PENALTY = 20;

let shipped: SentenceModel | undefined;

/** The trained model shipped with the service, decoded on first use. */
export function shippedSentenceModel(): SentenceModel {
  shipped ??= SentenceModel.fromData(SENTENCE_MODEL);
  return shipped;
}

/**
 * The learned check: the most suspicious sentence of every text a model reads, scored by the sentence model
 * (model/sentence-model.ts). It catches poisoned sentences the rule checks have no pattern for, in words the
 * training data never used, because it weighs concepts (secrets, secrecy, orders to the model, other tools,
 * money) rather than phrases.
 */
export function checkSentenceModel(
  texts: { where: string; text: string }[],
  model: SentenceModel,
  findings: Findings,
  { strongOnly = false }: { strongOnly?: boolean } = {},
): void {
  const worst = model.mostSuspicious(texts);
  if (!worst || worst.logit < (strongOnly ? model.strong : model.flag)) return;
  const strong = worst.logit >= model.strong;
  findings.add(
    'poisoning',
    strong ? STRONG_PENALTY : FLAG_PENALTY,
    `${worst.where} reads like a poisoned tool to the learned model (${strong ? 'strongly' : 'weakly'}, log-odds ${worst.logit.toFixed(2)}): "${excerpt(worst.sentence)}"`,
    `read ${worst.where} for instructions aimed at the model; block the tool if they were not expected`,
  );
}
