import { Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  CounterConfiguration,
  Gauge,
  GaugeConfiguration,
  Histogram,
  HistogramConfiguration,
  Registry,
} from 'prom-client';
import { AppConfig } from '../config/app-config';

/**
 * One Prometheus registry per application instance (not prom-client's global one), so several instances
 * can share a process: replicas in tests and the baseline app in benchmarks. Metric names get the
 * configured namespace; modules declare their metrics once, as providers, through these factories.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();
  readonly namespace: string;

  constructor(config: AppConfig) {
    this.namespace = config.metrics.namespace;
    collectDefaultMetrics({ register: this.registry });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return new Counter({ ...config, name: this.name(config.name), registers: [this.registry] });
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return new Histogram({ ...config, name: this.name(config.name), registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return new Gauge({ ...config, name: this.name(config.name), registers: [this.registry] });
  }

  private name(suffix: string): string {
    return `${this.namespace}_${suffix}`;
  }
}

/** Latency buckets in seconds, from a no-op tool call to a slow remote search. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
