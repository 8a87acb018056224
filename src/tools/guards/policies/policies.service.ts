import { Injectable } from '@nestjs/common';
import { ApiError } from '../../../common/api-error';
import { Clock } from '../../../common/clock';
import { newId } from '../../../common/ids';
import type { ListPage } from '../../../common/list.dto';
import { ChangeEvents } from '../../../database/change-events';
import type { Identity } from '../../../tenancy/request-context';
import {
  CreatePolicyDto,
  DeletedPolicyDto,
  ListPoliciesQueryDto,
  PolicyDto,
  PolicyRevisionDto,
  UpdatePolicyDto,
} from './policies.dto';
import { compileCondition, PolicyConditionError } from './policy-condition';
import { PolicyEntity, PolicyRevisionEntity } from './policy.entity';
import { presentPolicy, presentRevision } from './policy.presenter';
import { PolicyRepository } from './policy.repository';

export const POLICIES_CHANGED = 'policies.changed';

/**
 * CRUD of call policies (admins). A condition is compiled before anything is stored, so a rule that would
 * not run is a 400 naming the position; every write keeps a revision, and is announced so that every
 * replica's snapshot (PolicySet) picks it up.
 */
@Injectable()
export class PoliciesService {
  constructor(
    private readonly policies: PolicyRepository,
    private readonly events: ChangeEvents,
    private readonly clock: Clock,
  ) {}

  async create(caller: Identity, input: CreatePolicyDto): Promise<PolicyDto> {
    assertCompiles(input.condition);
    await this.assertNameFree(input.tenant_id, input.name);
    const now = this.clock.now();
    const policy = Object.assign(new PolicyEntity(), {
      id: newId('pol_'),
      tenantId: input.tenant_id,
      name: input.name,
      description: input.description ?? '',
      profile: input.profile ?? null,
      tools: input.tools ?? [],
      condition: input.condition,
      effect: input.effect,
      message: input.message ?? null,
      redactPaths: input.redact_paths ?? [],
      enabled: input.enabled ?? true,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    assertRedactHasPaths(policy);
    await this.write(caller, policy, 'created');
    return presentPolicy(policy);
  }

  async list(query: ListPoliciesQueryDto): Promise<ListPage<PolicyDto>> {
    const page = await this.policies.page(query.tenant_id, query);
    return { ...page, data: page.data.map(presentPolicy) };
  }

  async get(id: string): Promise<PolicyDto> {
    return presentPolicy(await this.find(id));
  }

  async revisions(id: string): Promise<ListPage<PolicyRevisionDto>> {
    const policy = await this.find(id);
    const data = (await this.policies.revisions(policy.tenantId, policy.id)).map(presentRevision);
    return {
      object: 'list',
      data,
      first_id: null,
      last_id: null,
      has_more: false,
    };
  }

  async update(caller: Identity, id: string, input: UpdatePolicyDto): Promise<PolicyDto> {
    const policy = await this.find(id);
    if (input.condition !== undefined) assertCompiles(input.condition);
    if (input.name !== undefined && input.name !== policy.name)
      await this.assertNameFree(policy.tenantId, input.name, id);
    Object.assign(policy, {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.profile !== undefined && { profile: input.profile }),
      ...(input.tools !== undefined && { tools: input.tools }),
      ...(input.condition !== undefined && { condition: input.condition }),
      ...(input.effect !== undefined && { effect: input.effect }),
      ...(input.message !== undefined && { message: input.message }),
      ...(input.redact_paths !== undefined && { redactPaths: input.redact_paths }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      version: policy.version + 1,
      updatedAt: this.clock.now(),
    });
    assertRedactHasPaths(policy);
    await this.write(caller, policy, 'updated');
    return presentPolicy(policy);
  }

  async remove(caller: Identity, id: string): Promise<DeletedPolicyDto> {
    const policy = await this.find(id);
    policy.version += 1;
    await this.write(caller, policy, 'deleted');
    return { id, object: 'policy.deleted', deleted: true };
  }

  private async write(caller: Identity, policy: PolicyEntity, action: PolicyRevisionEntity['action']): Promise<void> {
    const revision = Object.assign(new PolicyRevisionEntity(), {
      policyId: policy.id,
      version: policy.version,
      tenantId: policy.tenantId,
      action,
      rule: presentPolicy(policy),
      changedBy: caller.subject,
      changedAt: this.clock.now(),
    });
    await this.policies.write(policy, revision, action === 'deleted');
    await this.events.publish(POLICIES_CHANGED);
  }

  private async find(id: string): Promise<PolicyEntity> {
    const policy = await this.policies.anyById(id);
    if (!policy) throw ApiError.notFound('policy', id, 'id');
    return policy;
  }

  private async assertNameFree(tenantId: string, name: string, exceptId?: string): Promise<void> {
    if (await this.policies.nameTaken(tenantId, name, exceptId))
      throw ApiError.conflict(`Tenant '${tenantId}' already has a policy named '${name}'`, 'name_taken', 'name');
  }
}

function assertCompiles(condition: string): void {
  try {
    compileCondition(condition);
  } catch (error) {
    if (error instanceof PolicyConditionError)
      throw ApiError.invalid(`condition does not compile: ${error.message}`, 'condition', 'invalid_condition');
    throw error;
  }
}

function assertRedactHasPaths(policy: PolicyEntity): void {
  if (policy.effect === 'redact' && policy.redactPaths.length === 0)
    throw ApiError.invalid('a redact policy needs redact_paths', 'redact_paths');
}
