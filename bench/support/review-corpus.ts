import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ReviewSubject, reviewedTexts } from '../../src/tools/catalog/auto-review';
import type { Permission } from '../../src/tools/catalog/catalog.types';
import type { SourcedTrainingTool } from './review-model-training';

/** A tool of the review fixtures (test/fixtures/auto-review). */
export interface CorpusTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  permissions: Permission[];
  source?: string;
  family?: string;
  split?: string;
  /** Rounds written by other hands (attack-writer-*.json, benign-writer-*.json): who wrote the entry. */
  writer?: string;
  /** Whether the entry is an attack, in the writer rounds, which may mix both. */
  attack?: boolean;
}

const FIXTURES = join(__dirname, '../../../test/fixtures/auto-review');

export const loadCorpus = (file: string) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as CorpusTool[];

export function subjectOf(tool: CorpusTool): ReviewSubject {
  return {
    name: tool.name,
    description: tool.description,
    schema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    permissions: tool.permissions,
    annotations: tool.annotations,
    sourceType: 'mcp',
  };
}

export function trainingTool(tool: CorpusTool, attack: boolean): SourcedTrainingTool {
  return { texts: reviewedTexts(subjectOf(tool)), attack, source: tool.source ?? 'attack', name: tool.name };
}

/**
 * The benign fixtures the shipped sentence model learns from: real servers' tools, and hand-written ones so that
 * the model does not learn how hand-written text reads (the attacks are hand-written) instead of what it says.
 * benign-heldout-5.json to -7.json and benign-handwritten-heldout(-2).json are kept out: they measure.
 */
export const TRAINING_BENIGN = [
  'benign.json',
  'benign-heldout.json',
  'benign-heldout-2.json',
  'benign-heldout-3.json',
  'benign-heldout-4.json',
  'benign-handwritten.json',
  'benign-handwritten-2.json',
  'benign-handwritten-3.json',
  'benign-handwritten-4.json',
  'benign-handwritten-5.json',
];
/**
 * The attack fixtures the shipped sentence model learns from: written attacks, the rounds that were once unseen
 * (each scored before it joined), and eight sets written for training. attack-heldout-9.json to -13.json are kept
 * out: they measure.
 */
export const TRAINING_ATTACKS = [
  'malicious.json',
  'attack-families.json',
  'attack-heldout-5.json',
  'attack-heldout-6.json',
  'attack-heldout-7.json',
  'attack-heldout-8.json',
  'attack-training-a.json',
  'attack-training-b.json',
  'attack-training-c.json',
  'attack-training-d.json',
  'attack-training-e.json',
  'attack-training-f.json',
  'attack-training-g.json',
  'attack-training-h.json',
];

/** The attack rounds kept out of training: the unseen split of `npm run bench review-heldout`. */
export const HELDOUT_ATTACKS = [
  'attack-heldout-9.json',
  'attack-heldout-10.json',
  'attack-heldout-11.json',
  'attack-heldout-12.json',
  'attack-heldout-13.json',
];
/**
 * Rounds written in parallel by other people (`attack-writer-*.json`, `benign-writer-*.json`, entries
 * {name, description, inputSchema, permissions, family, attack, split, writer}), when present: unseen splits,
 * in no training set, picked up by file name so that nobody has to open them to list them.
 */
export function writerRounds(): { attacks: CorpusTool[]; benign: CorpusTool[] } {
  const files = readdirSync(FIXTURES).filter((file) => /^(attack|benign)-writer-.*\.json$/.test(file));
  // A writer's benign counter-examples count as one server of theirs (the model is calibrated by server).
  const tools = files.flatMap((file) =>
    loadCorpus(file).map((tool) => ({
      ...tool,
      attack: tool.attack ?? file.startsWith('attack-'),
      source: tool.source ?? `writer:${tool.writer}`,
    })),
  );
  return { attacks: tools.filter((tool) => tool.attack), benign: tools.filter((tool) => !tool.attack) };
}

/**
 * Blind rounds (`blind-*.json`, entries as in the writer rounds): written by other hands after everything else,
 * committed before their first score, and in no training set or tuning of any kind.
 */
export function blindRounds(): { attacks: CorpusTool[]; benign: CorpusTool[] } {
  const tools = readdirSync(FIXTURES)
    .filter((file) => /^blind-.*\.json$/.test(file))
    .flatMap(loadCorpus)
    .map((tool) => ({ ...tool, source: tool.source ?? `blind:${tool.writer}` }));
  return { attacks: tools.filter((tool) => tool.attack), benign: tools.filter((tool) => !tool.attack) };
}

/** Who wrote an attack: the `writer` of the writer rounds; each earlier round (split) counts as one writer. */
export function writerOf(tool: CorpusTool): string {
  return tool.writer ?? tool.split ?? 'malicious.json';
}

/** Benign tools kept out of training: real servers' and hand-written. */
export const HELDOUT_BENIGN_SERVERS = ['benign-heldout-5.json', 'benign-heldout-6.json', 'benign-heldout-7.json'];
export const HELDOUT_BENIGN_HANDWRITTEN = ['benign-handwritten-heldout.json', 'benign-handwritten-heldout-2.json'];

/**
 * Whether the shipped model learns from the writer rounds too. They joined only after their first blind score was
 * recorded; from then on the leave-one-writer-out runs of `npm run bench review-writers` measure them.
 */
export const WRITER_ROUNDS_IN_TRAINING = true;

/** What the shipped model is trained on, less the tools `leaveOut` rejects (a family or a writer, for a held-out run). */
export function shippedTrainingSet(
  leaveOut: (tool: CorpusTool, attack: boolean) => boolean = () => false,
): SourcedTrainingTool[] {
  return trainingSet(WRITER_ROUNDS_IN_TRAINING, leaveOut);
}

/**
 * The shipped training set with the writer rounds in it whether or not the shipped model has them, less the tools
 * `leaveOut` rejects: what the leave-one-writer-out and leave-one-family-out runs over the writer rounds train on.
 */
export function trainingSetWithWriterRounds(
  leaveOut: (tool: CorpusTool, attack: boolean) => boolean,
): SourcedTrainingTool[] {
  return trainingSet(true, leaveOut);
}

function trainingSet(
  withWriterRounds: boolean,
  leaveOut: (tool: CorpusTool, attack: boolean) => boolean,
): SourcedTrainingTool[] {
  const writers = withWriterRounds ? writerRounds() : { attacks: [], benign: [] };
  return [
    ...[...TRAINING_BENIGN.flatMap(loadCorpus), ...writers.benign]
      .filter((tool) => !leaveOut(tool, false))
      .map((tool) => trainingTool(tool, false)),
    ...[...TRAINING_ATTACKS.flatMap(loadCorpus), ...writers.attacks]
      .filter((tool) => !leaveOut(tool, true))
      .map((tool) => trainingTool(tool, true)),
  ];
}

/**
 * The catalog a corpus tool is reviewed against: every real server's tool of the fixtures, as a registry serving
 * these servers would hold, less the tool's own server's (the service does not compare a server's tools with
 * each other for impersonation). The hand-written sets are not one registry's catalog.
 */
export function reviewCatalog(): { catalog: string[]; catalogFor: (tool: CorpusTool) => string[] } {
  const tools = [...TRAINING_BENIGN, ...HELDOUT_BENIGN_SERVERS]
    .filter((file) => !file.startsWith('benign-handwritten'))
    .flatMap(loadCorpus);
  const catalog = tools.map((tool) => tool.name);
  const bySource = new Map<string, string[]>();
  const catalogFor = (tool: CorpusTool) => {
    if (!tool.source) return catalog;
    let names = bySource.get(tool.source);
    if (!names) bySource.set(tool.source, (names = tools.filter((t) => t.source !== tool.source).map((t) => t.name)));
    return names;
  };
  return { catalog, catalogFor };
}
