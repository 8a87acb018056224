import { Injectable } from '@nestjs/common';
import { ArgumentVerdict, CallGuard, GuardedCall, GuardFinding } from '../invocation/call-guard';
import type { ToolPayload } from '../tool-executor';
import { GuardMetrics } from './guard.metrics';
import { PolicyGuard } from './policies/policy-guard';
import { redactPaths } from './policies/redact-paths';
import { SecretGuard } from './secrets/secret-guard';

/**
 * The dispatcher's call-time guard: the tenant's policies and secret scanning over the arguments before a
 * call runs, secret scanning over its result before the caller sees it. A refused call names the argument
 * path and the kind of secret, or the policy's message; never a value.
 */
@Injectable()
export class CallGuardService extends CallGuard {
  constructor(
    private readonly policies: PolicyGuard,
    private readonly secrets: SecretGuard,
    private readonly metrics: GuardMetrics,
  ) {
    super();
  }

  async checkArguments(call: GuardedCall): Promise<ArgumentVerdict> {
    const policy = await this.policies.check(call);
    const secrets = await this.secrets.checkArguments(call);
    const findings = [...secrets.findings, ...policy.findings];
    this.count(findings);
    const audited = redactPaths(secrets.audited, policy.redactPaths);
    const blocking = secrets.blocking;
    if (blocking) {
      const what =
        blocking.kind === 'chained_leak'
          ? `a value from an earlier result (${blocking.source})`
          : `a secret (${blocking.kind})`;
      return {
        allowed: false,
        code: blocking.check,
        message: `Argument '${blocking.path}' of tool '${call.tool.name}' carries ${what}; the call was refused (${blocking.check})`,
        audited,
        findings,
      };
    }
    if (policy.denied) {
      const { policy: denying } = policy.denied.policy;
      return {
        allowed: false,
        code: 'policy_denied',
        message: denying.message ?? `Policy '${denying.name}' denies this call of tool '${call.tool.name}'`,
        audited,
        findings,
      };
    }
    return { allowed: true, arguments: redactPaths(call.arguments, policy.redactPaths), audited, findings };
  }

  async checkResult(
    call: GuardedCall,
    payload: ToolPayload,
  ): Promise<{ payload: ToolPayload; findings: GuardFinding[] }> {
    const checked = await this.secrets.checkResult(call, payload);
    this.count(checked.findings);
    return checked;
  }

  private count(findings: GuardFinding[]): void {
    for (const { check, kind, action } of findings) this.metrics.findings.inc({ check, kind, action });
  }
}
