import { Global, Module } from '@nestjs/common';
import { JsonSchemaValidator } from '../../common/json-schema';
import { InvocationMetrics } from './invocation.metrics';
import { ToolCallsController } from './tool-calls.controller';
import { ToolDefinitionsController } from './tool-definitions.controller';
import { ToolDispatcher } from './tool-dispatcher';

/** The dispatcher and its routes; the ToolPolicy it obeys comes from the catalog. */
@Global()
@Module({
  controllers: [ToolCallsController, ToolDefinitionsController],
  providers: [ToolDispatcher, InvocationMetrics, JsonSchemaValidator],
  exports: [ToolDispatcher, JsonSchemaValidator],
})
export class InvocationModule {}
