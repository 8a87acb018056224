import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../../observability/metrics.registry';

/** What the call-time guards found and how policies fared. */
@Injectable()
export class GuardMetrics {
  readonly findings: Counter<'check' | 'kind' | 'action'>;
  readonly policyErrors: Counter;

  constructor(metrics: MetricsRegistry) {
    this.findings = metrics.counter({
      name: 'guard_findings_total',
      help: 'Findings of call-time guards: secrets in arguments or results, chained exfiltration, policy matches.',
      labelNames: ['check', 'kind', 'action'],
    });
    this.policyErrors = metrics.counter({
      name: 'guard_policy_errors_total',
      help: 'Policy conditions that failed to evaluate on a call (treated as not matching).',
    });
  }
}
