import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { FunctionRegistry } from './function-registry';
import { ProviderApiMetricsMiddleware } from './provider-api-metrics.middleware';
import { RegistryMetrics } from './registry.metrics';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [FunctionRegistry, RegistryMetrics],
  exports: [FunctionRegistry],
})
export class RegistryModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ProviderApiMetricsMiddleware).forRoutes('*');
  }
}
