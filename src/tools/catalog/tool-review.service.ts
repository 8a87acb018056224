import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { AppConfig } from '../../config/app-config';
import { BackgroundTasks } from '../../observability/background';
import type { Identity } from '../../tenancy/request-context';
import { autoReview, type ReviewSubject, reviewedTexts } from './auto-review';
import { CatalogMetrics } from './catalog.metrics';
import type { SecurityStatus } from './catalog.types';
import { CatalogState } from './catalog-state';
import { contentHash } from './content-hash';
import { allowedDecisions, canTransition } from './review-transitions';
import { ToolReviewEntity } from './tool-review.entity';
import { ToolReviewRepository } from './tool-review.repository';
import { ToolRepository } from './tool.repository';
import { presentTool } from './tool.presenter';
import { AwaitedDecision, EncoderRecord, JudgeRecord, ToolEntity } from './tool.entity';
import { ReviewJudge, scoreWithJudge } from './review-judge';
import { scoreWithEncoder } from './review/encoder/encoder-head';
import { ReviewEncoder } from './review/encoder/review-encoder';
import type { AutoReviewDto, ReviewToolDto, ToolDto, ToolReviewDto } from './tools.dto';

/** Reviewer name for decisions the service makes itself (re-review on change, auto-approval). */
export const SYSTEM_REVIEWER = 'system';

/** Tools judged per pass; a pass runs again while more wait. */
const JUDGE_BATCH = 50;
/** Tools the sentence encoder reads per pass; likewise. */
const ENCODER_BATCH = 50;

@Injectable()
export class ToolReviewService implements OnApplicationBootstrap {
  private readonly logger = new Logger('ToolReview');
  private judging = false;
  private judgeAgain = false;
  private encoding = false;
  private encodeAgain = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ToolRepository,
    private readonly history: ToolReviewRepository,
    private readonly state: CatalogState,
    private readonly metrics: CatalogMetrics,
    private readonly config: AppConfig,
    private readonly judge: ReviewJudge,
    private readonly encoder: ReviewEncoder,
    private readonly background: BackgroundTasks,
    private readonly clock: Clock,
  ) {}

  /** Definitions left waiting for the judge or the encoder when the service stopped are read now. */
  onApplicationBootstrap(): void {
    this.reviewPending();
  }

  /** Starts the background passes of the model judge and the sentence encoder over what waits for them. */
  reviewPending(): void {
    this.judgePending();
    this.encodePending();
  }

  /** An admin's decision. A transition the workflow does not allow answers 409 naming the allowed ones. */
  async review(reviewer: Identity, toolId: string, input: ReviewToolDto): Promise<ToolDto> {
    const tool = await this.dataSource.transaction(async (manager) => {
      const entity = await this.tools.lockById(manager, toolId);
      if (!entity) throw ApiError.notFound('tool', toolId, 'id');
      if (input.definition_hash !== undefined && input.definition_hash !== contentHash(entity)) {
        throw ApiError.conflict(
          `The definition of '${entity.name}' changed since you read it: review the current definition (GET /v1/tools/${entity.id}) and send its definition_hash`,
          'definition_changed',
          'definition_hash',
        );
      }
      if (!canTransition(entity.securityStatus, input.decision)) {
        const allowed = allowedDecisions(entity.securityStatus);
        throw ApiError.conflict(
          `A ${entity.securityStatus} tool cannot be ${input.decision}; allowed decisions: ${allowed.join(', ')}`,
          'invalid_transition',
          'decision',
        );
      }
      await this.decide(manager, entity, input.decision, reviewer.subject, input.notes ?? null);
      return entity;
    });
    await this.state.changed();
    // A judge or encoder that failed earlier is asked again on the next review, as on the next refresh.
    this.reviewPending();
    return presentTool(tool, reviewer);
  }

  /**
   * Records a decision and applies it to the entity (saved). Approving or reviewing pins what the reviewer
   * saw; pending changes are settled by the decision.
   */
  async decide(
    manager: EntityManager,
    entity: ToolEntity,
    decision: SecurityStatus,
    reviewer: string,
    notes: string | null,
  ): Promise<void> {
    const hash = contentHash(entity);
    const review: ToolReviewEntity = {
      id: newId('review_'),
      toolId: entity.id,
      decision,
      fromStatus: entity.securityStatus,
      notes,
      reviewer,
      contentHash: hash,
      createdAt: this.clock.now(),
    };
    entity.securityStatus = decision;
    if (decision === 'reviewed' || decision === 'approved') {
      entity.reviewedHash = hash;
      entity.pendingChange = null;
    }
    if (reviewer !== SYSTEM_REVIEWER || decision !== 'unreviewed') {
      entity.reviewedBy = reviewer;
      entity.reviewedAt = review.createdAt;
    }
    entity.updatedAt = review.createdAt;
    await this.tools.save(entity, manager);
    await this.history.insert(manager, review);
    this.metrics.reviews.inc({ decision });
  }

  /** Runs the automated checks and stores the result on the entity (not saved). */
  assess(entity: ToolEntity, otherToolNames: string[]): void {
    const result = autoReview(subjectOf(entity), otherToolNames, {
      sentenceModel: this.config.catalog.review.sentence_model,
    });
    const checkedAt = this.clock.now().toISOString();
    const hash = contentHash(entity);
    const pending = { status: 'pending' as const, content_hash: hash, checked_at: checkedAt };
    // A reading of this very definition stands (built-in tools are assessed at every start): the encoder is not
    // loaded again for text it has read.
    const previous = entity.autoReview?.encoder;
    const read = previous?.status === 'done' && previous.content_hash === hash ? { ...previous } : undefined;
    delete read?.awaiting;
    entity.autoReview = {
      ...result,
      checked_at: checkedAt,
      // Judged and read after the change is stored (reviewPending), so that no request waits for a model.
      ...(this.judge.configured && { judge: pending }),
      ...(this.encoder.configured && { encoder: read ?? pending }),
    };
  }

  /**
   * The score that decisions use: the automated checks' score with the sentence encoder's reading (a finding like
   * the sentence model's) and then the judge's verdict, both on this very definition.
   */
  scoreOf(entity: ToolEntity): number {
    const encoder = this.currentEncoding(entity);
    const score =
      encoder?.status === 'done'
        ? scoreWithEncoder(entity.autoReview.score, encoder.reading ?? null)
        : entity.autoReview.score;
    const judge = this.currentJudgement(entity);
    if (judge?.status !== 'done') return score;
    return scoreWithJudge(score, judge, this.config.catalog.mandatory_review_threshold);
  }

  requiresHumanReview(entity: ToolEntity): boolean {
    return this.scoreOf(entity) < this.config.catalog.mandatory_review_threshold;
  }

  /** The judge's record when it is about the tool's current definition. */
  private currentJudgement(entity: ToolEntity): JudgeRecord | undefined {
    const judge = entity.autoReview.judge;
    return judge && judge.content_hash === contentHash(entity) ? judge : undefined;
  }

  /** The sentence encoder's record when it is on and the record is about the tool's current definition. */
  private currentEncoding(entity: ToolEntity): EncoderRecord | undefined {
    const encoder = entity.autoReview.encoder;
    return this.encoder.configured && encoder?.content_hash === contentHash(entity) ? encoder : undefined;
  }

  /** Why automatic approval waits for the sentence encoder, or undefined (off, or its reading is in). */
  private encoderBlocker(entity: ToolEntity): string | undefined {
    if (!this.encoder.configured) return undefined;
    const encoder = this.currentEncoding(entity);
    if (encoder?.status === 'done') return undefined;
    if (encoder?.status === 'unavailable')
      return `encoder_unavailable: the sentence encoder failed (${encoder.error}); it is asked again on the next review or refresh`;
    return 'the sentence encoder has not read it yet';
  }

  /** Why automatic approval waits for the judge, or undefined (no judge configured, or its verdict is in). */
  private judgeBlocker(entity: ToolEntity): string | undefined {
    if (!this.judge.configured) return undefined;
    const judge = this.currentJudgement(entity);
    if (judge?.status === 'done') return undefined;
    if (judge?.status === 'unavailable')
      return `judge_unavailable: the model judge failed (${judge.error}); it is asked again on the next review or refresh`;
    return 'the model judge has not given its verdict yet';
  }

  /**
   * Judges, in the background, every definition waiting for the judge (new, changed, or whose judgement
   * failed). One pass at a time per replica; a request during a pass makes it run once more.
   */
  private judgePending(): void {
    if (!this.judge.configured) return;
    if (this.judging) {
      this.judgeAgain = true;
      return;
    }
    this.judging = true;
    this.background.run('review_judge', async () => {
      try {
        do {
          this.judgeAgain = false;
          for (const id of await this.tools.awaitingJudge(JUDGE_BATCH)) await this.judgeOne(id);
        } while (this.judgeAgain);
      } finally {
        this.judging = false;
      }
    });
  }

  private async judgeOne(id: string): Promise<void> {
    const tool = await this.tools.byId(id);
    const hash = tool && contentHash(tool);
    if (!tool || this.currentJudgement(tool)?.status === 'done' || tool.autoReview.judge?.content_hash !== hash) return;
    let outcome: Pick<JudgeRecord, 'status' | 'verdict' | 'families' | 'evidence' | 'error'>;
    try {
      outcome = { status: 'done', ...(await this.judge.judge({ ...tool, permissions: [...tool.permissions] })) };
    } catch (error) {
      this.logger.warn(`The model judge could not judge tool '${tool.name}': ${(error as Error).message}`);
      outcome = { status: 'unavailable', error: (error as Error).message };
    }
    await this.dataSource.transaction(async (manager) => {
      const current = await this.tools.lockById(manager, id);
      // The definition moved while the model thought: that judgement is about something else.
      if (!current || contentHash(current) !== hash || current.autoReview.judge?.content_hash !== hash) return;
      const awaiting = current.autoReview.judge?.awaiting;
      current.autoReview = {
        ...current.autoReview,
        judge: {
          ...outcome,
          content_hash: hash,
          checked_at: this.clock.now().toISOString(),
          ...(outcome.status !== 'done' && awaiting && { awaiting }),
        },
      };
      await this.tools.save(current, manager);
      if (outcome.status === 'done' && awaiting)
        await this.settleAwaiting(manager, current, awaiting, `model judge: ${outcome.verdict}`);
    });
    await this.state.changed();
  }

  /**
   * Reads, in the background, every definition waiting for the sentence encoder (new, changed, or whose reading
   * failed), one at a time in the encoder's thread. One pass at a time per replica; a request during a pass makes
   * it run once more.
   */
  private encodePending(): void {
    if (!this.encoder.configured) return;
    if (this.encoding) {
      this.encodeAgain = true;
      return;
    }
    this.encoding = true;
    this.background.run('review_encoder', async () => {
      try {
        let more: boolean;
        do {
          this.encodeAgain = false;
          const ids = await this.tools.awaitingEncoder(ENCODER_BATCH);
          let read = 0;
          for (const id of ids) if (await this.encodeOne(id)) read++;
          // A full batch that got somewhere may have more behind it (a large discovery); one that only failed
          // again stops here, and waits for the next review or refresh.
          more = ids.length === ENCODER_BATCH && read > 0;
        } while (this.encodeAgain || more);
      } finally {
        this.encoding = false;
      }
    });
  }

  /** Reads one definition and stores the reading; whether a reading was stored. */
  private async encodeOne(id: string): Promise<boolean> {
    const tool = await this.tools.byId(id);
    const hash = tool && contentHash(tool);
    if (!tool || this.currentEncoding(tool)?.status === 'done' || tool.autoReview.encoder?.content_hash !== hash)
      return false;
    let outcome: Pick<EncoderRecord, 'status' | 'logit' | 'reading' | 'error'>;
    try {
      const { logit, reading } = await this.encoder.read({ name: tool.name, texts: reviewedTexts(subjectOf(tool)) });
      outcome = { status: 'done', logit, reading };
    } catch (error) {
      this.logger.warn(`The sentence encoder could not read tool '${tool.name}': ${(error as Error).message}`);
      outcome = { status: 'unavailable', error: (error as Error).message };
    }
    const stored = await this.dataSource.transaction(async (manager) => {
      const current = await this.tools.lockById(manager, id);
      // The definition moved while the encoder read it: that reading is about something else.
      if (!current || contentHash(current) !== hash || current.autoReview.encoder?.content_hash !== hash) return false;
      const awaiting = current.autoReview.encoder?.awaiting;
      current.autoReview = {
        ...current.autoReview,
        encoder: {
          ...outcome,
          content_hash: hash,
          checked_at: this.clock.now().toISOString(),
          ...(outcome.status !== 'done' && awaiting && { awaiting }),
        },
      };
      await this.tools.save(current, manager);
      if (outcome.status === 'done' && awaiting)
        await this.settleAwaiting(manager, current, awaiting, `sentence encoder: ${readingNote(outcome)}`);
      return outcome.status === 'done';
    });
    await this.state.changed();
    return stored;
  }

  /**
   * Once a model's verdict is in, applies the automatic decision that waited for it, or keeps the tool in
   * quarantine saying why; nothing yet while the other model's verdict is still awaited (its record carries the
   * decision too, and settles it).
   */
  private async settleAwaiting(
    manager: EntityManager,
    current: ToolEntity,
    awaiting: AwaitedDecision,
    verdict: string,
  ): Promise<void> {
    if (current.securityStatus !== 'unreviewed') return;
    const others = [this.currentJudgement(current), this.currentEncoding(current)];
    if (others.some((record) => record && record.status !== 'done' && record.awaiting)) return;
    const blocker = this.automaticApprovalBlocker(current);
    if (blocker === undefined)
      await this.decide(manager, current, awaiting.decision, awaiting.reviewer, `${awaiting.notes}; ${verdict}`);
    else
      await this.decide(
        manager,
        current,
        'unreviewed',
        SYSTEM_REVIEWER,
        `kept in quarantine (${awaiting.notes}): ${blocker}`,
      );
  }

  /**
   * Why this definition may not be approved without a human, or undefined. Every automatic approval asks it:
   * a trusted config-file server, a source's default status and `catalog.auto_approve_score` alike, for new
   * tools as for changed ones.
   */
  automaticApprovalBlocker(entity: ToolEntity): string | undefined {
    if (this.requiresHumanReview(entity))
      return `the automated review scored it ${this.scoreOf(entity)}, below catalog.mandatory_review_threshold (${this.config.catalog.mandatory_review_threshold})`;
    return this.judgeBlocker(entity) ?? this.encoderBlocker(entity);
  }

  /** Whether config lets this unreviewed tool be approved without a human (`catalog.auto_approve_score`). */
  private qualifiesForAutoApproval(entity: ToolEntity): boolean {
    const threshold = this.config.catalog.auto_approve_score;
    return threshold !== undefined && !this.requiresHumanReview(entity) && this.scoreOf(entity) >= threshold;
  }

  /** Approves a new unreviewed tool without a human when config allows it; decideAutomatically also waits for the judge. */
  async autoApproveIfQualified(manager: EntityManager, entity: ToolEntity): Promise<void> {
    if (!this.qualifiesForAutoApproval(entity)) return;
    await this.decideAutomatically(
      manager,
      entity,
      'approved',
      SYSTEM_REVIEWER,
      `auto-approved: automated review scored ${entity.autoReview.score}`,
    );
  }

  /**
   * Applies a status the tool would get without a human (trusted server, a source's default status), or holds
   * it unreviewed, with a history entry saying why, when its definition does not pass the automated checks.
   */
  async decideAutomatically(
    manager: EntityManager,
    entity: ToolEntity,
    decision: SecurityStatus,
    reviewer: string,
    notes: string,
  ): Promise<boolean> {
    const blocker = decision === 'blocked' ? undefined : this.automaticApprovalBlocker(entity);
    if (blocker === undefined) {
      await this.decide(manager, entity, decision, reviewer, notes);
      return true;
    }
    // Held only for the models: their verdicts apply the decision if the definition passes (reviewPending).
    if (!this.requiresHumanReview(entity)) {
      const awaiting = { decision, reviewer, notes };
      const judge = this.currentJudgement(entity);
      const encoder = this.currentEncoding(entity);
      entity.autoReview = {
        ...entity.autoReview,
        ...(judge && judge.status !== 'done' && { judge: { ...judge, awaiting } }),
        ...(encoder && encoder.status !== 'done' && { encoder: { ...encoder, awaiting } }),
      };
    }
    await this.decide(manager, entity, 'unreviewed', SYSTEM_REVIEWER, `quarantined (${notes}): ${blocker}`);
    return false;
  }

  async reviews(toolId: string, query: ListQueryDto): Promise<ListPage<ToolReviewDto>> {
    return this.history.pageOfTool(toolId, query, (review) => ({
      id: review.id,
      object: 'tool_review' as const,
      tool_id: review.toolId,
      decision: review.decision,
      from_status: review.fromStatus,
      notes: review.notes,
      reviewer: review.reviewer,
      content_hash: review.contentHash,
      created_at: review.createdAt.toISOString(),
    }));
  }

  presentAutoReview(entity: ToolEntity): AutoReviewDto {
    const { score, flags, suggestions, checked_at } = entity.autoReview;
    const judge = this.judge.configured ? this.currentJudgement(entity) : undefined;
    const encoder = this.currentEncoding(entity);
    const unavailable = [
      ...(judge?.status === 'unavailable' ? [`judge_unavailable: ${judge.error}`] : []),
      ...(encoder?.status === 'unavailable' ? [`encoder_unavailable: ${encoder.error}`] : []),
    ];
    const encoderFinding = encoder?.status === 'done' && encoder.reading;
    return {
      tool_id: entity.id,
      object: 'tool.auto_review',
      score: this.scoreOf(entity),
      checks_score: score,
      flags: [
        ...flags,
        ...(encoderFinding ? [`the sentence encoder reads the tool as poisoned (${readingNote(encoder)})`] : []),
        ...unavailable,
      ],
      suggestions: [
        ...suggestions,
        ...(encoderFinding
          ? ['read the whole definition for instructions aimed at the model; block the tool if they were not expected']
          : []),
      ],
      requires_human_review: this.requiresHumanReview(entity),
      checked_at,
      judge: judge
        ? {
            status: judge.status,
            verdict: judge.verdict ?? null,
            families: judge.families ?? [],
            evidence: judge.evidence ?? [],
            error: judge.error ?? null,
            checked_at: judge.checked_at,
          }
        : null,
      encoder: encoder
        ? {
            status: encoder.status,
            reading: encoder.reading ?? null,
            logit: encoder.logit ?? null,
            error: encoder.error ?? null,
            checked_at: encoder.checked_at,
          }
        : null,
    };
  }
}

/** What the automated checks read of a tool's definition. */
function subjectOf(entity: ToolEntity): ReviewSubject {
  return {
    name: entity.name,
    upstreamName: entity.source?.type === 'mcp' ? (entity.source.tool_name ?? undefined) : undefined,
    description: entity.description,
    schema: entity.schema,
    outputSchema: entity.outputSchema,
    permissions: entity.permissions,
    sourceType: entity.source?.type,
    annotations: entity.annotations ?? undefined,
  };
}

/** How strongly the encoder reads a tool as poisoned: "strongly, log-odds 9.12", or "not poisoned, log-odds -2.05". */
function readingNote({ reading, logit }: Pick<EncoderRecord, 'reading' | 'logit'>): string {
  const how = reading === 'strong' ? 'strongly' : reading === 'weak' ? 'weakly' : 'not poisoned';
  return `${how}, log-odds ${(logit ?? 0).toFixed(2)}`;
}
