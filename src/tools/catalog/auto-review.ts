import type { AutoReviewResult, Permission, SourceType } from './catalog.types';
import { checkAnnotations } from './review/annotations.check';
import { checkSentenceModel, shippedSentenceModel } from './review/learned.check';
import type { SentenceModel } from './review/model/sentence-model';
import { type FamilyCheck, Findings, type Kind } from './review/findings';
import { checkName, ownNames } from './review/impersonation.check';
import { checkParameters } from './review/parameters.check';
import { checkPatterns } from './review/patterns.check';
import { checkPermissions } from './review/permissions.check';
import { checkSecretExposure } from './review/secret-exposure.check';
import { allParameters, schemaTexts } from './review/schema';
import { foldName } from './review/sentence';
import { checkText } from './review/text.check';
import { escapeRegExp } from './review/text';

/** What the automated checks look at. */
export interface ReviewSubject {
  name: string;
  /**
   * A discovered tool's name on its own server (`source.tool_name`), which its own texts use: its catalog name
   * (`<source>-<tool>`) is not what its description calls it.
   */
  upstreamName?: string;
  description: string;
  schema: unknown;
  outputSchema?: unknown;
  permissions: Permission[];
  /** Where the tool comes from: an MCP tool without annotations is taken as destructive, the protocol's default. */
  sourceType?: SourceType;
  /** MCP tool annotations (`title`, `readOnlyHint`, `destructiveHint`, ...), when the tool has any. */
  annotations?: Record<string, unknown>;
}

/**
 * The automated review of a tool definition. One file per check family under `review/`. Two kinds of findings:
 *
 * - Attack surface: unrestricted strings, parameters taking code, paths or URLs,
 *   secrets passed as arguments, risky permission sets, tools that may be destructive. Most real tools have
 *   some surface, so these lower the score without sinking a tool on their own.
 * - Signs of malice, looked for sentence by sentence in the description, the annotations' texts and every
 *   text of both schemas (descriptions, titles, defaults, examples, enum values): text addressed to the model
 *   that hides things from the user, claims authority, redirects other tools or their arguments, orders
 *   commands run or asks for data the tool has no business with; statements of undisclosed behaviour;
 *   advertising; endpoints that data is sent to; hidden or encoded text; executable payloads; capabilities
 *   the description does not admit to; names or descriptions that imitate another catalog tool.
 *   Ordinary usage guidance ("you must call X first", "IMPORTANT: do not call more than 3 times",
 *   "do not put API keys in the query") is not a sign of malice and is not flagged.
 *
 * Beside the rules, a learned model scores every sentence (review/learned.check.ts); `sentenceModel: false`
 * (catalog.review.sentence_model) leaves the rules alone.
 *
 * The score starts at 100; each finding takes off a penalty, capped per kind, so that many small
 * issues of one kind cannot sink a tool alone.
 */
export function autoReview(
  subject: ReviewSubject,
  otherToolNames: string[] = [],
  { sentenceModel = true }: { sentenceModel?: boolean } = {},
): AutoReviewResult {
  return review(subject, otherToolNames, new Findings(), sentenceModel ? shippedSentenceModel() : null);
}

/**
 * The review with some family checks switched off, and another sentence model (or none, `null`): what the remaining
 * checks catch of a family they were not written for, with a model that never saw it (the leave-one-family-out
 * figures of `npm run bench review-heldout`).
 */
export function autoReviewWithout(
  subject: ReviewSubject,
  otherToolNames: string[],
  without: readonly FamilyCheck[],
  model: SentenceModel | null = shippedSentenceModel(),
): AutoReviewResult {
  return review(subject, otherToolNames, new Findings(undefined, without), model);
}

function review(
  subject: ReviewSubject,
  otherToolNames: string[],
  findings: Findings,
  model: SentenceModel | null,
): AutoReviewResult {
  const others = [...new Set(otherToolNames)].filter((other) => other !== subject.name);
  const texts = reviewedTexts(subject);
  const parameters = allParameters(subject.schema, '$');

  checkParameters(subject, parameters, findings);
  checkPermissions(subject, parameters, findings);
  checkSecretExposure(subject, findings);
  checkAnnotations(subject, findings);
  checkPatterns(subject.schema, '$', findings);
  checkPatterns(subject.outputSchema, 'output $', findings);
  // Compiled once: a schema can carry thousands of texts. Either of the tool's names reads as "this tool".
  const names = ownNames(subject);
  const selfName = names.length
    ? new RegExp(`(^|[^\\w-])(?:${names.map(escapeRegExp).join('|')})(?![\\w-])`, 'gi')
    : undefined;
  const context = {
    selfName,
    others,
    self: new Set(names.map(foldName)),
    parameters: new Set(parameters.map((p) => foldName(p.name))),
    catalog: new Set(others.map(foldName)),
  };
  for (const { where, text } of texts) checkText(where, text, context, findings);
  if (model) checkSentenceModel(texts, model, findings);
  checkName(subject, others, findings);

  return findings.summarize();
}

/** Every text of a tool a model reads: its description, its annotations' texts and the texts of both schemas. */
export function reviewedTexts(subject: ReviewSubject): { where: string; text: string }[] {
  return [
    { where: 'description', text: subject.description ?? '' },
    ...annotationTexts(subject.annotations),
    ...schemaTexts(subject.schema, '$'),
    ...schemaTexts(subject.outputSchema, 'output $'),
  ];
}

/** The longest tool output scanned: injections sit where a model reads first, and the cost stays bounded. */
export const OUTPUT_SCAN_LIMIT = 65_536;
/** What an injection in a tool's output can do to the model: instructions, hidden text, requests for data. */
const OUTPUT_KINDS: Kind[] = ['poisoning', 'exfiltration', 'impersonation'];

/**
 * The checks for text addressed to the model, applied to a tool's *result* (an MCP tool's output is as
 * untrusted as its description). Only the first `limit` characters are read, each a bounded
 * number of times. Surface findings (parameters, permissions, mere mentions of URLs) do not apply.
 * The sentence model reads the result as it reads descriptions, counting only its strong readings: a result is
 * not a tool's documentation, and a weak reading there would flag ordinary prose.
 */
export function scanOutputText(
  text: string,
  limit = OUTPUT_SCAN_LIMIT,
  { sentenceModel = true }: { sentenceModel?: boolean } = {},
): AutoReviewResult {
  const findings = new Findings(OUTPUT_KINDS);
  const read = (text ?? '').slice(0, limit);
  checkText(
    'tool output',
    read,
    { others: [], self: new Set<string>(), parameters: new Set(), catalog: new Set(), output: true },
    findings,
  );
  if (sentenceModel)
    checkSentenceModel([{ where: 'tool output', text: read }], shippedSentenceModel(), findings, { strongOnly: true });
  return findings.summarize();
}

/** The annotations' texts: a title is read by the model like a description. */
function annotationTexts(annotations: Record<string, unknown> | undefined): { where: string; text: string }[] {
  if (!annotations || typeof annotations !== 'object') return [];
  return Object.entries(annotations)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, text]) => ({ where: `annotation ${key}`, text }));
}
