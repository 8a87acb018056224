import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { BackgroundTasks } from './background';
import { HealthController } from './health.controller';
import { HttpMetrics, HttpMetricsMiddleware } from './http-metrics';
import { Lifecycle } from './lifecycle';
import { MetricsController } from './metrics.controller';
import { MetricsRegistry } from './metrics.registry';

@Global()
@Module({
  controllers: [HealthController, MetricsController],
  providers: [MetricsRegistry, HttpMetrics, Lifecycle, BackgroundTasks],
  exports: [MetricsRegistry, Lifecycle, BackgroundTasks],
})
export class ObservabilityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
