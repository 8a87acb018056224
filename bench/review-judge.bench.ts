import { Semaphore } from '../src/common/semaphore';
import type { AppConfig } from '../src/config/app-config';
import { autoReview } from '../src/tools/catalog/auto-review';
import type { SecretResolver } from '../src/tools/catalog/credentials/secret-resolver';
import { ReviewJudge, scoreWithJudge } from '../src/tools/catalog/review-judge';
import {
  type CorpusTool,
  HELDOUT_ATTACKS,
  HELDOUT_BENIGN_HANDWRITTEN,
  HELDOUT_BENIGN_SERVERS,
  loadCorpus,
  reviewCatalog,
  subjectOf,
} from './support/review-corpus';

/** catalog.mandatory_review_threshold's default. */
const THRESHOLD = 70;

/** What the judge answered for one tool, or why it did not. */
type Judged = { score: number; failed?: string };

/**
 * `npm run bench review-judge`: the unseen split of the held-out protocol (review-heldout.bench.ts) reviewed
 * with the optional model judge (catalog.review.judge), against a real OpenAI-compatible endpoint:
 *
 *   TOOLGATE_JUDGE_URL=https://host/v1 TOOLGATE_JUDGE_MODEL=name [TOOLGATE_JUDGE_KEY=...] \
 *     [TOOLGATE_JUDGE_CONCURRENCY=4] npm run bench review-judge
 *
 * Every unseen attack and benign tool is judged once with the service's rubric, and its score combined with the
 * automated one as the service combines them (scoreWithJudge). Detection and false positives are printed
 * without and with the judge; a failed judgement counts as needing a human (the service keeps the tool
 * pending) and is counted apart. Without TOOLGATE_JUDGE_URL it prints how to run it and measures nothing.
 */
export async function run(): Promise<void> {
  const url = process.env.TOOLGATE_JUDGE_URL;
  const model = process.env.TOOLGATE_JUDGE_MODEL;
  if (!url || !model) {
    console.log('\nModel judge on the unseen split: skipped (set TOOLGATE_JUDGE_URL and TOOLGATE_JUDGE_MODEL)');
    return;
  }
  const key = process.env.TOOLGATE_JUDGE_KEY;
  const config = {
    catalog: { review: { judge: { url, model, timeout: 120_000, ...(key && { secret_ref: 'judge' }) } } },
  } as unknown as AppConfig;
  const judge = new ReviewJudge(config, { resolve: () => key } as unknown as SecretResolver);
  const { catalogFor } = reviewCatalog();
  const sets: [string, CorpusTool[]][] = [
    ['unseen attacks (attack-heldout-9..13)', HELDOUT_ATTACKS.flatMap(loadCorpus)],
    ...HELDOUT_BENIGN_SERVERS.map((file): [string, CorpusTool[]] => [file, loadCorpus(file)]),
    ['benign-handwritten-heldout(-2).json', HELDOUT_BENIGN_HANDWRITTEN.flatMap(loadCorpus)],
  ];
  const slots = new Semaphore(Math.max(1, Number(process.env.TOOLGATE_JUDGE_CONCURRENCY ?? 4)));

  console.log(`\nModel judge on the unseen split (${model}, threshold ${THRESHOLD})`);
  for (const [label, tools] of sets) {
    const automated = tools.map((tool) => autoReview(subjectOf(tool), catalogFor(tool)).score);
    const judged = await Promise.all(
      tools.map((tool, i) =>
        slots.run(async (): Promise<Judged> => {
          const subject = subjectOf(tool);
          try {
            const opinion = await judge.judge({
              name: tool.name,
              description: tool.description,
              schema: subject.schema,
              outputSchema: subject.outputSchema,
              annotations: subject.annotations,
              permissions: tool.permissions,
            });
            return { score: scoreWithJudge(automated[i], opinion, THRESHOLD) };
          } catch (error) {
            return { score: automated[i], failed: (error as Error).message };
          }
        }),
      ),
    );
    const below = (i: number) => judged[i].failed !== undefined || judged[i].score < THRESHOLD;
    const row = (name: string, indices: number[]) => {
      const before = indices.filter((i) => automated[i] < THRESHOLD).length;
      const after = indices.filter(below).length;
      const failed = indices.filter((i) => judged[i].failed !== undefined).length;
      console.log(
        `    ${name.padEnd(44)} without judge ${share(before, indices.length)}   with judge ${share(after, indices.length)}   judge failed ${failed}`,
      );
    };
    console.log(`  ${label}: below ${THRESHOLD}`);
    row(
      'all',
      tools.map((_, i) => i),
    );
    for (const family of [...new Set(tools.map((tool) => tool.family).filter(Boolean))])
      row(
        family!,
        tools.flatMap((tool, i) => (tool.family === family ? [i] : [])),
      );
    const failures = [...new Set(judged.flatMap((j) => (j.failed ? [j.failed] : [])))].slice(0, 3);
    if (failures.length) console.log(`    judge failures, e.g.: ${failures.join('; ')}`);
  }
}

const share = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}% (${part}/${whole})`.padStart(16);
