import { isoTime } from '../../../common/time';
import type { PolicyDto, PolicyRevisionDto } from './policies.dto';
import type { PolicyEntity, PolicyRevisionEntity } from './policy.entity';

export function presentPolicy(policy: PolicyEntity): PolicyDto {
  return {
    id: policy.id,
    object: 'policy',
    tenant_id: policy.tenantId,
    name: policy.name,
    description: policy.description,
    profile: policy.profile,
    tools: policy.tools,
    condition: policy.condition,
    effect: policy.effect,
    message: policy.message,
    redact_paths: policy.redactPaths,
    enabled: policy.enabled,
    version: policy.version,
    created_at: isoTime(policy.createdAt),
    updated_at: isoTime(policy.updatedAt),
  };
}

export function presentRevision(revision: PolicyRevisionEntity): PolicyRevisionDto {
  return {
    object: 'policy.revision',
    policy_id: revision.policyId,
    version: revision.version,
    action: revision.action,
    rule: revision.rule,
    changed_by: revision.changedBy,
    changed_at: isoTime(revision.changedAt),
  };
}
