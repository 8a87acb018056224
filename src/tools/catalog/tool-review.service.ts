import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { newId } from '../../common/ids';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { autoReview } from './auto-review';
import { CatalogMetrics } from './catalog.metrics';
import type { SecurityStatus } from './catalog.types';
import { CatalogState } from './catalog-state';
import { contentHash } from './content-hash';
import { allowedDecisions, canTransition } from './review-transitions';
import { ToolReviewEntity } from './tool-review.entity';
import { presentTool } from './tool.presenter';
import { ToolEntity } from './tool.entity';
import type { AutoReviewDto, ReviewToolDto, ToolDto, ToolReviewDto } from './tools.dto';

/** Reviewer name for decisions the service makes itself (re-review on change, auto-approval). */
export const SYSTEM_REVIEWER = 'system';

@Injectable()
export class ToolReviewService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly state: CatalogState,
    private readonly metrics: CatalogMetrics,
    private readonly config: AppConfig,
  ) {}

  /** An admin's decision. A transition the workflow does not allow answers 409 naming the allowed ones. */
  async review(reviewer: Identity, toolId: string, input: ReviewToolDto): Promise<ToolDto> {
    const tool = await this.dataSource.transaction(async (manager) => {
      const entity = await manager
        .getRepository(ToolEntity)
        .findOne({ where: { id: toolId }, lock: { mode: 'pessimistic_write' } });
      if (!entity) throw ApiError.notFound('tool', toolId, 'id');
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
      createdAt: new Date(),
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
    await manager.getRepository(ToolEntity).save(entity);
    await manager.getRepository(ToolReviewEntity).insert(review);
    this.metrics.reviews.inc({ decision });
  }

  /** Runs the automated checks and stores the result on the entity (not saved). */
  assess(entity: ToolEntity, otherToolNames: string[]): void {
    const result = autoReview(
      {
        name: entity.name,
        description: entity.description,
        schema: entity.schema,
        outputSchema: entity.outputSchema,
        permissions: entity.permissions,
        sourceType: entity.source?.type,
        annotations: entity.annotations ?? undefined,
      },
      otherToolNames,
    );
    entity.autoReview = { ...result, checked_at: new Date().toISOString() };
  }

  requiresHumanReview(entity: ToolEntity): boolean {
    return entity.autoReview.score < this.config.catalog.mandatory_review_threshold;
  }

  /** Whether config lets this unreviewed tool be approved without a human. */
  qualifiesForAutoApproval(entity: ToolEntity): boolean {
    const threshold = this.config.catalog.auto_approve_score;
    return threshold !== undefined && !this.requiresHumanReview(entity) && entity.autoReview.score >= threshold;
  }

  async reviews(toolId: string, query: ListQueryDto): Promise<ListPage<ToolReviewDto>> {
    const builder = this.dataSource
      .getRepository(ToolReviewEntity)
      .createQueryBuilder('review')
      .where('review.toolId = :toolId', { toolId });
    return paginate(builder, { ...query, order: query.order ?? 'asc' }, (review) => ({
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
    return {
      tool_id: entity.id,
      object: 'tool.auto_review',
      score,
      flags,
      suggestions,
      requires_human_review: this.requiresHumanReview(entity),
      checked_at,
    };
  }
}
