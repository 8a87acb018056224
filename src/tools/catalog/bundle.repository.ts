import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import { BundleAssignmentEntity, BundleEntity } from './bundle.entity';

/** Who a bundle is assigned to: a tenant (`agentProfile` empty) or one agent profile of a tenant. */
export interface AssignmentKey {
  bundleId: string;
  tenantId: string;
  agentProfile: string;
}

/** The `bundles` and `bundle_assignments` tables (an assignment lives and dies with its bundle). */
@Injectable()
export class BundleRepository {
  private readonly bundles: Repository<BundleEntity>;
  private readonly assignments: Repository<BundleAssignmentEntity>;

  constructor(dataSource: DataSource) {
    this.bundles = dataSource.getRepository(BundleEntity);
    this.assignments = dataSource.getRepository(BundleAssignmentEntity);
  }

  all(): Promise<BundleEntity[]> {
    return this.bundles.find();
  }

  allAssignments(): Promise<BundleAssignmentEntity[]> {
    return this.assignments.find();
  }

  byId(id: string): Promise<BundleEntity | null> {
    return this.bundles.findOneBy({ id });
  }

  page(query: ListQueryDto): Promise<ListPage<BundleEntity>> {
    return paginate(this.bundles.createQueryBuilder('bundle'), query, (bundle) => bundle);
  }

  async save(bundle: BundleEntity): Promise<void> {
    await this.bundles.save(bundle);
  }

  async delete(id: string): Promise<void> {
    await this.bundles.delete({ id });
  }

  /** Takes a deleted tool out of every bundle, in the transaction that deletes it. */
  async removeToolEverywhere(manager: EntityManager, toolId: string, now: Date): Promise<void> {
    await manager.query(
      `UPDATE bundles SET tool_ids = array_remove(tool_ids, $1), updated_at = $2 WHERE $1 = ANY(tool_ids)`,
      [toolId, now],
    );
  }

  assignmentsOf(bundleId: string): Promise<BundleAssignmentEntity[]> {
    return this.assignments.find({ where: { bundleId }, order: { tenantId: 'ASC', agentProfile: 'ASC' } });
  }

  /** Idempotent: an existing assignment is left as it is. */
  async assign(key: AssignmentKey, now: Date): Promise<void> {
    await this.assignments
      .createQueryBuilder()
      .insert()
      .values({ ...key, createdAt: now })
      .orIgnore()
      .execute();
  }

  /** Answers whether there was such an assignment. */
  async unassign(key: AssignmentKey): Promise<boolean> {
    const result = await this.assignments.delete(key);
    return Boolean(result.affected);
  }
}
