import { Module } from '@nestjs/common';
import { BackgroundTasks } from './background';
import { EventLoopMetrics } from './event-loop-metrics';
import { HealthController } from './health.controller';
import { HttpMetrics } from './http-metrics';
import { Lifecycle } from './lifecycle';
import { MetricsController } from './metrics.controller';
import { MetricsRegistry } from './metrics.registry';

/** Metrics, health, lifecycle and tracked background work; HttpMetricsMiddleware, which uses HttpMetrics, is mounted by AppModule. */
@Module({
  controllers: [HealthController, MetricsController],
  providers: [MetricsRegistry, HttpMetrics, EventLoopMetrics, Lifecycle, BackgroundTasks],
  exports: [MetricsRegistry, HttpMetrics, Lifecycle, BackgroundTasks],
})
export class ObservabilityModule {}
