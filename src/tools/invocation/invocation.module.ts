import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JsonSchemaValidator } from '../../common/json-schema';
import { InvocationMetrics } from './invocation.metrics';
import { ToolCallsController } from './tool-calls.controller';
import { ToolDefinitionsController } from './tool-definitions.controller';
import { ToolDispatcher } from './tool-dispatcher';
import { ToolExecutors } from './tool-executors';

/**
 * The dispatcher and its routes; the ToolPolicy it obeys comes from the catalog, the executors it calls
 * are found by their `@ToolExecutorFor()` mark.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [ToolCallsController, ToolDefinitionsController],
  providers: [ToolDispatcher, ToolExecutors, InvocationMetrics, JsonSchemaValidator],
  exports: [ToolDispatcher, JsonSchemaValidator],
})
export class InvocationModule {}
