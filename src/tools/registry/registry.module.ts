import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ObservabilityModule } from '../../observability/observability.module';
import { FunctionRegistry } from './function-registry';
import { RegistryMetrics } from './registry.metrics';

/** The FunctionRegistry of built-in providers; ProviderApiMetricsMiddleware, which uses both, is mounted by AppModule. */
@Module({
  imports: [DiscoveryModule, ObservabilityModule],
  providers: [FunctionRegistry, RegistryMetrics],
  exports: [FunctionRegistry, RegistryMetrics],
})
export class RegistryModule {}
