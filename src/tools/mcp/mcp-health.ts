import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from '../../observability/metrics.registry';
import { Clock } from '../../common/clock';

const WINDOW_MS = 15 * 60_000;
const MAX_SAMPLES = 500;

interface Sample {
  at: number;
  ok: boolean;
  ms: number;
}

export interface ExecutionHealth {
  window_seconds: number;
  calls: number;
  success_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

/**
 * Recent execution health per source, over a sliding window (this replica's calls), and the gauge
 * `<ns>_tool_registry_mcp_server_health{source}`: 1 when the last discovery succeeded and recent calls
 * mostly succeed, 0 otherwise.
 */
@Injectable()
export class McpHealth {
  private readonly samples = new Map<string, Sample[]>();
  private readonly discoveryOk = new Map<string, boolean>();
  private readonly gauge: Gauge<'source'>;

  constructor(
    metrics: MetricsRegistry,
    private readonly clock: Clock,
  ) {
    // Set when scraped, not on every call: the success rate is a pass over the window's samples.
    this.gauge = metrics.gauge({
      name: 'tool_registry_mcp_server_health',
      help: 'MCP source health: 1 when discovery succeeds and recent calls mostly succeed, else 0.',
      labelNames: ['source'],
      collect: () => {
        for (const source of new Set([...this.samples.keys(), ...this.discoveryOk.keys()])) this.updateGauge(source);
      },
    });
  }

  recordCall(source: string, ok: boolean, ms: number): void {
    const list = this.samples.get(source) ?? [];
    list.push({ at: this.clock.now().getTime(), ok, ms });
    if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
    this.samples.set(source, list);
  }

  recordDiscovery(source: string, ok: boolean): void {
    this.discoveryOk.set(source, ok);
  }

  forget(source: string): void {
    this.samples.delete(source);
    this.discoveryOk.delete(source);
    this.gauge.remove({ source });
  }

  execution(source: string): ExecutionHealth {
    const cutoff = this.clock.now().getTime() - WINDOW_MS;
    const recent = (this.samples.get(source) ?? []).filter((sample) => sample.at >= cutoff);
    const durations = recent.map((sample) => sample.ms).sort((a, b) => a - b);
    const pick = (q: number) =>
      durations.length ? durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] : null;
    return {
      window_seconds: WINDOW_MS / 1000,
      calls: recent.length,
      success_rate: recent.length ? recent.filter((sample) => sample.ok).length / recent.length : null,
      p50_ms: pick(0.5),
      p95_ms: pick(0.95),
    };
  }

  private updateGauge(source: string): void {
    const { success_rate } = this.execution(source);
    const healthy = this.discoveryOk.get(source) !== false && (success_rate === null || success_rate >= 0.5);
    this.gauge.set({ source }, healthy ? 1 : 0);
  }
}
