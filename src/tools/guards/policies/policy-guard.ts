import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import type { GuardedCall, GuardFinding } from '../../invocation/call-guard';
import type { ResolvedTool } from '../../invocation/tool-policy';
import { GuardMetrics } from '../guard.metrics';
import { CompiledPolicy, PolicySet } from './policy-set';
import { RequestCounter } from './request-counter';

export interface PolicyVerdict {
  findings: GuardFinding[];
  /** The first deny policy that matched: its message goes to the caller. */
  denied?: { policy: CompiledPolicy; finding: GuardFinding };
  /** The argument paths `redact` policies replace. */
  redactPaths: string[];
}

const NOTHING: PolicyVerdict = { findings: [], redactPaths: [] };

/** Evaluates the calling tenant's policies that are in scope for the call. */
@Injectable()
export class PolicyGuard {
  private readonly counter = new RequestCounter();

  constructor(
    private readonly policies: PolicySet,
    private readonly clock: Clock,
    private readonly metrics: GuardMetrics,
  ) {}

  async check({ identity, tool, arguments: args }: GuardedCall): Promise<PolicyVerdict> {
    const policies = await this.policies.forTenant(identity.tenantId);
    const now = this.clock.now();
    const calls = this.counter.hit(`${identity.tenantId}\u0000${identity.subject}\u0000${tool.name}`, now.getTime());
    if (policies.length === 0) return NOTHING;
    const inScope = policies.filter((compiled) => appliesTo(compiled, tool, identity.agentProfile));
    if (inScope.length === 0) return NOTHING;
    const activation = {
      tool: {
        name: tool.name,
        upstream_name: tool.source.tool_name ?? tool.name,
        source: tool.source.type,
        origin: tool.origin,
        tags: tool.tags ?? [],
        permissions: tool.permissions ?? [],
      },
      arguments: args,
      identity: {
        tenant: identity.tenantId,
        role: identity.role,
        profile: identity.agentProfile ?? '',
        subject: identity.subject,
      },
      request: { time: now, calls_last_minute: BigInt(calls) },
    };
    const verdict: PolicyVerdict = { findings: [], redactPaths: [] };
    for (const compiled of inScope) {
      if (!this.matches(compiled, activation)) continue;
      const { policy } = compiled;
      const action = policy.effect === 'deny' ? 'blocked' : policy.effect === 'redact' ? 'redacted' : 'flagged';
      const finding: GuardFinding = {
        check: 'policy',
        kind: policy.effect,
        action,
        source: `${policy.id}@v${policy.version}`,
      };
      verdict.findings.push(finding);
      if (policy.effect === 'deny') verdict.denied ??= { policy: compiled, finding };
      if (policy.effect === 'redact') verdict.redactPaths.push(...policy.redactPaths);
    }
    return verdict;
  }

  /** A condition that fails to evaluate (a missing argument, a type mismatch) does not match; it is counted. */
  private matches(compiled: CompiledPolicy, activation: Record<string, unknown>): boolean {
    try {
      return compiled.condition(activation) === true;
    } catch {
      this.metrics.policyErrors.inc();
      return false;
    }
  }
}

function appliesTo({ policy, tools }: CompiledPolicy, tool: ResolvedTool, profile: string | undefined): boolean {
  if (policy.profile !== null && policy.profile !== (profile ?? null)) return false;
  if (tools.length === 0) return true;
  const upstream = tool.source.tool_name;
  return tools.some((pattern) => pattern.test(tool.name) || (upstream !== undefined && pattern.test(upstream)));
}
