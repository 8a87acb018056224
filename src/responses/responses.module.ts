import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../observability/observability.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { InvocationModule } from '../tools/invocation/invocation.module';
import { ResponsesController } from './responses.controller';
import { ResponsesMetrics } from './responses.metrics';
import { ResponsesService } from './responses.service';
import { ResponsesRepository } from './responses.repository';

/** /v1/responses: the OpenAI Responses API as an agent loop over the caller's governed tools. */
@Module({
  imports: [ObservabilityModule, TenancyModule, InvocationModule],
  controllers: [ResponsesController],
  providers: [ResponsesService, ResponsesRepository, ResponsesMetrics],
})
export class ResponsesModule {}
