import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import { ToolReviewEntity } from './tool-review.entity';

/** The `tool_reviews` table: each tool's review history, written in the transaction that changes its status. */
@Injectable()
export class ToolReviewRepository {
  private readonly reviews: Repository<ToolReviewEntity>;

  constructor(dataSource: DataSource) {
    this.reviews = dataSource.getRepository(ToolReviewEntity);
  }

  async insert(manager: EntityManager, review: ToolReviewEntity): Promise<void> {
    await manager.getRepository(ToolReviewEntity).insert(review);
  }

  /** Oldest first unless the query says otherwise. */
  pageOfTool<T>(toolId: string, query: ListQueryDto, present: (review: ToolReviewEntity) => T): Promise<ListPage<T>> {
    const builder = this.reviews.createQueryBuilder('review').where('review.toolId = :toolId', { toolId });
    return paginate(builder, { ...query, order: query.order ?? 'asc' }, present);
  }
}
