import { Injectable, Logger } from '@nestjs/common';
import { ChangeEvents } from '../../../database/change-events';
import { POLICIES_CHANGED } from './policies.service';
import { CompiledCondition, compileCondition } from './policy-condition';
import type { PolicyEntity } from './policy.entity';
import { PolicyRepository } from './policy.repository';

/** A policy ready to evaluate: its scope as matchers and its condition compiled. */
export interface CompiledPolicy {
  policy: PolicyEntity;
  tools: RegExp[];
  condition: CompiledCondition;
}

/**
 * Every enabled policy, compiled, by tenant: the in-memory snapshot the hot path reads. Reloaded after any
 * change announced here or on another replica. A stored condition that no longer compiles (a library
 * upgrade) is left out and logged, never run.
 */
@Injectable()
export class PolicySet {
  private readonly logger = new Logger('Policies');
  private snapshot?: Promise<Map<string, CompiledPolicy[]>>;

  constructor(
    private readonly policies: PolicyRepository,
    events: ChangeEvents,
  ) {
    events.subscribe(POLICIES_CHANGED, () => (this.snapshot = undefined));
    events.onReset(() => (this.snapshot = undefined));
  }

  async forTenant(tenantId: string): Promise<CompiledPolicy[]> {
    if (!this.snapshot) {
      const loading = this.load();
      this.snapshot = loading;
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = undefined;
      });
    }
    return (await this.snapshot).get(tenantId) ?? [];
  }

  private async load(): Promise<Map<string, CompiledPolicy[]>> {
    const byTenant = new Map<string, CompiledPolicy[]>();
    for (const policy of await this.policies.allEnabled()) {
      let condition: CompiledCondition;
      try {
        condition = compileCondition(policy.condition);
      } catch (error) {
        this.logger.error(
          `Policy ${policy.id} of tenant '${policy.tenantId}' no longer compiles: ${(error as Error).message}`,
        );
        continue;
      }
      const list = byTenant.get(policy.tenantId) ?? [];
      list.push({ policy, tools: policy.tools.map(globPattern), condition });
      byTenant.set(policy.tenantId, list);
    }
    // Oldest first: the order findings are reported in, and the first matching deny answers the caller.
    for (const list of byTenant.values())
      list.sort((a, b) => a.policy.createdAt.getTime() - b.policy.createdAt.getTime());
    return byTenant;
  }
}

/** `delete_*` as an anchored expression; every other character literal. */
function globPattern(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}
