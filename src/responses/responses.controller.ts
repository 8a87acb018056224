import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../auth/auth.decorators';
import { ApiError } from '../common/api-error';
import { ApiErrors } from '../common/api-errors.decorator';
import { RequestContext } from '../tenancy/request-context';
import { SseStream } from '../tools/invocation/sse-stream';
import { NO_EVENTS } from './response-loop';
import {
  CreateResponseDto,
  DeletedResponseDto,
  InputItemsQueryDto,
  ResponseDto,
  ResponseItemListDto,
  RetrieveResponseQueryDto,
} from './responses.dto';
import { ResponsesService } from './responses.service';

@ApiTags('Responses')
@Authenticated()
@Controller('v1/responses')
export class ResponsesController {
  private readonly logger = new Logger('Responses');

  constructor(
    private readonly responses: ResponsesService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Create a response (OpenAI Responses API)',
    description:
      'Runs an agent loop on the upstream model (engine.upstream): the model may call the request tools; ' +
      'server-side tools (catalog tools, file_search, web_search, MCP sources) run through the dispatcher with ' +
      'policy, rate limits, validation and an audit record carrying the response id; a client function call ends ' +
      'the response with `function_call` items, continued by `function_call_output` items and ' +
      '`previous_response_id`. With `stream: true` the answer is Server-Sent Events in the order of the Responses ' +
      'stream (`response.created`, `response.in_progress`, output item, content part, text and call events, then ' +
      '`response.completed`, `.failed` or `.incomplete`); closing the connection cancels the response. ' +
      'With `background: true` the queued response is answered at once. 503 while engine.upstream.url is unset.',
  })
  // A first turn: previous_response_id names an earlier response, so a generated body with it could not be sent first.
  @ApiBody({
    type: CreateResponseDto,
    examples: {
      file_search: {
        value: {
          model: 'gpt-4o-mini',
          input: 'What does our travel policy say about trains?',
          instructions: 'Answer from the documents only.',
          tools: [{ type: 'file_search', vector_store_ids: ['vs_abc123'] }],
          max_output_tokens: 1024,
          metadata: { ticket: 'OPS-12' },
        },
      },
    },
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ type: ResponseDto })
  @ApiErrors(400, 404, 413, 503)
  async create(@Body() body: unknown, @Res() response: Response): Promise<void> {
    const identity = this.context.identity;
    const clientGone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) clientGone.abort();
    });
    const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
    if (!streaming) {
      const created = await this.responses.create(identity, body, NO_EVENTS, clientGone.signal);
      if (!response.writableEnded && !clientGone.signal.aborted) response.status(200).json(created);
      return;
    }
    const stream = new SseStream(response);
    try {
      await this.responses.create(
        identity,
        body,
        {
          send: (type, payload) => {
            if (!stream.started) stream.start();
            stream.send(type, payload);
          },
        },
        clientGone.signal,
      );
    } catch (error) {
      // Before the first event the error is an ordinary HTTP answer; after it, an `error` event of the stream.
      if (!stream.started) throw error;
      if (!(error instanceof ApiError)) this.logger.error({ err: error }, 'Streamed response failed');
      const known = error instanceof ApiError ? error : undefined;
      stream.send('error', {
        code: known?.code ?? 'server_error',
        message: known?.message ?? 'The response failed because of an internal error',
        param: known?.param ?? null,
      });
    }
    stream.end();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a stored response', description: "Another tenant's response is a 404." })
  @ApiOkResponse({ type: ResponseDto })
  @ApiErrors(400, 404)
  get(@Param('id') id: string, @Query() query: RetrieveResponseQueryDto): Promise<ResponseDto> {
    return this.responses.get(this.context.identity, id, query.include ?? []) as Promise<ResponseDto>;
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a stored response and its items' })
  @ApiOkResponse({ type: DeletedResponseDto })
  @ApiErrors(404)
  delete(@Param('id') id: string): Promise<DeletedResponseDto> {
    return this.responses.delete(this.context.identity, id);
  }

  @Get(':id/input_items')
  @ApiOperation({ summary: "A stored response's input items", description: 'Newest first unless order=asc.' })
  @ApiOkResponse({ type: ResponseItemListDto })
  @ApiErrors(400, 404)
  inputItems(@Param('id') id: string, @Query() query: InputItemsQueryDto): Promise<ResponseItemListDto> {
    return this.responses.inputItems(this.context.identity, id, query);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a background response',
    description: 'Stops a queued or running background response on whichever replica runs it; it ends `cancelled`.',
  })
  @ApiOkResponse({ type: ResponseDto })
  @ApiErrors(400, 404)
  cancel(@Param('id') id: string): Promise<ResponseDto> {
    return this.responses.cancel(this.context.identity, id) as Promise<ResponseDto>;
  }
}
