import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../../common/list.dto';
import { paginate } from '../../../common/paginate';
import { PolicyEntity, PolicyRevisionEntity } from './policy.entity';

/** The `policies` table and its revision history; every read and write is scoped to one tenant. */
@Injectable()
export class PolicyRepository {
  private readonly policies: Repository<PolicyEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.policies = dataSource.getRepository(PolicyEntity);
  }

  /** Every enabled policy of every tenant, for the in-memory snapshot the hot path reads. */
  allEnabled(): Promise<PolicyEntity[]> {
    return this.policies.findBy({ enabled: true });
  }

  byId(tenantId: string, id: string): Promise<PolicyEntity | null> {
    return this.policies.findOneBy({ tenantId, id });
  }

  page(tenantId: string | undefined, query: ListQueryDto): Promise<ListPage<PolicyEntity>> {
    const builder = this.policies.createQueryBuilder('policy');
    if (tenantId !== undefined) builder.where('policy.tenantId = :tenantId', { tenantId });
    return paginate(builder, query, (policy) => policy);
  }

  /** Finds a policy by id across tenants: admins address policies by id alone. */
  anyById(id: string): Promise<PolicyEntity | null> {
    return this.policies.findOneBy({ id });
  }

  revisions(tenantId: string, policyId: string): Promise<PolicyRevisionEntity[]> {
    return this.dataSource
      .getRepository(PolicyRevisionEntity)
      .find({ where: { tenantId, policyId }, order: { version: 'ASC' } });
  }

  /** Writes the policy (or deletes it) and its revision in one transaction. */
  async write(policy: PolicyEntity, revision: PolicyRevisionEntity, remove = false): Promise<void> {
    await this.dataSource.transaction(async (manager: EntityManager) => {
      if (remove) await manager.delete(PolicyEntity, { tenantId: policy.tenantId, id: policy.id });
      else await manager.save(PolicyEntity, policy);
      await manager.insert(PolicyRevisionEntity, revision);
    });
  }

  nameTaken(tenantId: string, name: string, exceptId?: string): Promise<boolean> {
    return this.policies
      .createQueryBuilder('policy')
      .where('policy.tenantId = :tenantId AND policy.name = :name', { tenantId, name })
      .andWhere(exceptId ? 'policy.id <> :exceptId' : 'TRUE', { exceptId })
      .getExists();
  }
}
