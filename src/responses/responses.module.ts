import { Module } from '@nestjs/common';
import { ResponsesController } from './responses.controller';
import { ResponsesMetrics } from './responses.metrics';
import { ResponsesService } from './responses.service';
import { ResponsesRepository } from './responses.repository';

/** /v1/responses: the OpenAI Responses API as an agent loop over the caller's governed tools. */
@Module({
  controllers: [ResponsesController],
  providers: [ResponsesService, ResponsesRepository, ResponsesMetrics],
})
export class ResponsesModule {}
