import { Global, Module } from '@nestjs/common';
import { JsonSchemaValidator } from '../../common/json-schema';
import { BuiltinToolPolicy } from './builtin-tool-policy';
import { InvocationMetrics } from './invocation.metrics';
import { ToolCallsController } from './tool-calls.controller';
import { ToolDefinitionsController } from './tool-definitions.controller';
import { ToolDispatcher } from './tool-dispatcher';
import { ToolPolicy } from './tool-policy';

@Global()
@Module({
  controllers: [ToolCallsController, ToolDefinitionsController],
  providers: [
    ToolDispatcher,
    InvocationMetrics,
    JsonSchemaValidator,
    { provide: ToolPolicy, useClass: BuiltinToolPolicy },
  ],
  exports: [ToolDispatcher, JsonSchemaValidator],
})
export class InvocationModule {}
