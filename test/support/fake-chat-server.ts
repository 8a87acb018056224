import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenAI-compatible chat model (vLLM, LiteLLM, OpenAI): a real HTTP server on 127.0.0.1
 * speaking `/v1/chat/completions`. The test decides what the model answers, per request, from the
 * definition it was shown; failures (an HTTP status, a malformed answer) can be queued.
 */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: unknown } };
}

export interface FakeChatServer {
  /** Base URL, as configured in catalog.review.judge.url. */
  url: string;
  requests: ChatRequest[];
  authorizations: (string | undefined)[];
  /** The JSON the model answers for a request (serialized into choices[0].message.content). */
  answer: (request: ChatRequest) => unknown;
  /** The next N requests answer this HTTP status, or this raw message content when given a string. */
  failNext(count: number, failure: number | string): void;
  close(): Promise<void>;
}

export async function startFakeChatServer(): Promise<FakeChatServer> {
  const failures: (number | string)[] = [];
  const state: FakeChatServer = {
    url: '',
    requests: [],
    authorizations: [],
    answer: () => ({ verdict: 'benign', families: [], evidence: [] }),
    failNext: (count, failure) => failures.push(...Array<number | string>(count).fill(failure)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      state.authorizations.push(request.headers.authorization);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      state.requests.push(body);
      const failure = failures.shift();
      if (typeof failure === 'number') {
        response.writeHead(failure, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the model is overloaded', type: 'server_error' } }));
        return;
      }
      const content = typeof failure === 'string' ? failure : JSON.stringify(state.answer(body));
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${state.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
