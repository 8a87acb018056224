import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { RequestContext } from '../../tenancy/request-context';
import { SseStream } from './sse-stream';
import { CreateToolCallDto, ToolCallDto } from './tool-calls.dto';
import type { ToolCallObject } from './tool-call';
import { toolCallAnswer } from './tool-call-answer';
import { InvokeRequest, ToolDispatcher } from './tool-dispatcher';

@ApiTags('Tool calls')
@Authenticated()
@Controller('v1/tool_calls')
export class ToolCallsController {
  constructor(
    private readonly dispatcher: ToolDispatcher,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Run a tool',
    description:
      "Runs a tool of the caller's effective set through authorization, argument validation, execution and audit. " +
      'A tool failure is a `failed` tool_call (HTTP 200). With `stream: true` the answer is Server-Sent Events: ' +
      '`tool_call.created`, any number of `tool_call.progress`, then `tool_call.completed` or `tool_call.failed`, then ' +
      '`data: [DONE]`. Closing the connection cancels the tool.',
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ type: ToolCallDto })
  @ApiErrors(400, 429)
  async create(@Body() body: CreateToolCallDto, @Res() response: Response): Promise<void> {
    const identity = this.context.identity;
    const clientGone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) clientGone.abort();
    });
    const request: InvokeRequest = {
      name: body.name,
      arguments: body.arguments,
      callId: body.call_id,
      responseId: body.response_id,
      timeoutMs: body.timeout_ms,
    };
    if (!body.stream) {
      const toolCall = toolCallAnswer(await this.dispatcher.invoke(identity, request, { signal: clientGone.signal }));
      if (!response.writableEnded && !clientGone.signal.aborted) response.status(200).json(toolCall);
      return;
    }
    const stream = new SseStream(response);
    // The call's own call_id (the caller's, or the call's id when none was given): progress comes after start.
    let callId = '';
    const created = (toolCall: ToolCallObject) => {
      callId = toolCall.call_id;
      stream.start();
      stream.send('tool_call.created', { tool_call: toolCall });
    };
    const toolCall = toolCallAnswer(
      await this.dispatcher.invoke(identity, request, {
        signal: clientGone.signal,
        onStart: created,
        onProgress: (progress) => stream.send('tool_call.progress', { call_id: callId, progress }),
      }),
    );
    // A call refused before it started (denied) still gets its created event, then the outcome.
    if (!stream.started) created({ ...toolCall, status: 'in_progress' });
    stream.send(toolCall.status === 'completed' ? 'tool_call.completed' : 'tool_call.failed', { tool_call: toolCall });
    stream.end();
  }
}
