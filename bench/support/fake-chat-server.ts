import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenAI-compatible model server: POST /v1/chat/completions with `stream: true` answered
 * in the real Chat Completions streaming wire format (`data: {chat.completion.chunk}` lines, a usage chunk,
 * `data: [DONE]`). Each request takes the next scripted turn; tool call arguments are cut into many small
 * deltas, and parallel calls are interleaved, as real servers send them. With no scripted turn left, the
 * `responder` (if set) chooses the answer from the request, so concurrent clients can share the server.
 */

export interface ScriptedCall {
  name: string;
  arguments: string;
  id?: string;
}

export type Turn =
  | { text: string }
  | { toolCalls: ScriptedCall[]; text?: string }
  | { status: number; body: unknown }
  /** A 200 whose body is this text as it is (not the streaming format). */
  | { raw: string }
  /** Sends `text` (if any) then never finishes, until the client goes away. */
  | { hang: true; text?: string }
  /** A hostile stream: one line that never ends, `bytes` of it as fast as the client reads, then held open. */
  | { endlessLine: number };

export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: Record<string, unknown>[];
    tools?: { type: 'function'; function: { name: string; parameters: unknown } }[];
    tool_choice?: unknown;
    parallel_tool_calls?: boolean;
    stream?: boolean;
  } & Record<string, unknown>;
}

export class FakeChatServer {
  readonly requests: ChatRequest[] = [];
  /** How many hanging answers were abandoned by the client (an upstream request aborted). */
  abandoned = 0;
  /** Bytes of endless lines the client read (or the socket took) before it went away. */
  endlessBytesSent = 0;
  /** Answers requests when no scripted turn is left. */
  responder?: (request: ChatRequest['body']) => Turn;
  private readonly turns: Turn[] = [];
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeChatServer> {
    const holder: { fake?: FakeChatServer } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.fake = new FakeChatServer(server, `http://127.0.0.1:${port}/v1`);
    return holder.fake;
  }

  /** Queues the answers of the next requests, in order. */
  script(...turns: Turn[]): void {
    this.turns.push(...turns);
  }

  get pending(): number {
    return this.turns.length;
  }

  reset(): void {
    this.turns.length = 0;
    this.requests.length = 0;
    this.abandoned = 0;
    this.endlessBytesSent = 0;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
    this.requests.push({ headers: req.headers, body });
    const turn = this.turns.shift() ??
      this.responder?.(body) ?? { status: 500, body: { error: { message: 'no scripted turn left' } } };
    if ('status' in turn) {
      res.writeHead(turn.status, { 'content-type': 'application/json' }).end(JSON.stringify(turn.body));
      return;
    }
    if ('raw' in turn) {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(turn.raw);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if ('endlessLine' in turn) {
      await this.endlessLine(res, turn.endlessLine);
      return;
    }
    const id = `chatcmpl-${this.requests.length}`;
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created: 1764000000,
          model: body.model,
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    const text = 'text' in turn ? (turn.text ?? '') : '';
    for (const piece of pieces(text, 3)) send({ content: piece });
    if ('hang' in turn) {
      res.on('close', () => this.abandoned++);
      return;
    }
    const calls = 'toolCalls' in turn ? turn.toolCalls : [];
    // Each call: a first delta with id and name, then its arguments a few characters at a time, the
    // deltas of parallel calls interleaved.
    calls.forEach((call, index) =>
      send({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${this.requests.length}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    const split = calls.map((call) => pieces(call.arguments, 4));
    for (let step = 0; split.some((parts) => step < parts.length); step++) {
      split.forEach((parts, index) => {
        if (step < parts.length) send({ tool_calls: [{ index, function: { arguments: parts[step] } }] });
      });
    }
    send({}, calls.length > 0 ? 'tool_calls' : 'stop');
    res.write(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: 1764000000,
        model: body.model,
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  }

  private async endlessLine(res: ServerResponse, bytes: number): Promise<void> {
    res.on('close', () => this.abandoned++);
    res.write('data: {"choices":[{"index":0,"delta":{"content":"');
    const piece = Buffer.alloc(65_536, 'a');
    for (let sent = 0; sent < bytes && !res.destroyed; sent += piece.length) {
      this.endlessBytesSent += piece.length;
      if (res.write(piece)) continue;
      await drained(res);
    }
  }
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Until the socket takes more, or is gone. */
export function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
