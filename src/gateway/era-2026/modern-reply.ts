import type { Response } from 'express';
import { ModernError, RequestId } from './protocol';

/**
 * The answer to one modern POST: a single JSON object, or an SSE stream scoped to the request that
 * carries its notifications and ends with its response. The stream opens on the first notification,
 * so a request that sends none is answered as plain JSON. Once the client closes its end (the HTTP
 * cancellation signal of 2026-07-28) nothing more is written and `signal` aborts.
 */
export class ModernReply {
  private readonly abort = new AbortController();
  private streaming = false;
  private ended = false;

  constructor(
    private readonly response: Response,
    readonly id: RequestId | undefined,
  ) {
    response.on('close', () => {
      if (!response.writableFinished) this.abort.abort();
      this.ended = true;
    });
  }

  /** Runs once the response is over, whoever ended it. */
  onEnd(callback: () => void): void {
    this.response.on('close', callback);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Sends a notification on the request's stream, opening it if need be; dropped once the client is gone. */
  notify(method: string, params: Record<string, unknown>): void {
    this.stream();
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** Opens the SSE stream now (a long-lived stream must not wait for its first notification). */
  stream(): void {
    if (this.streaming || this.ended) return;
    this.streaming = true;
    this.response.status(200);
    this.response.setHeader('Content-Type', 'text/event-stream');
    this.response.setHeader('Cache-Control', 'no-cache');
    // Proxies such as nginx otherwise buffer the stream and hold notifications back.
    this.response.setHeader('X-Accel-Buffering', 'no');
    this.response.flushHeaders();
  }

  /** An SSE comment: keeps intermediaries from closing a quiet stream. */
  keepAlive(): void {
    if (this.streaming && !this.ended) this.response.write(':\n\n');
  }

  result(result: Record<string, unknown>): void {
    this.finish({ jsonrpc: '2.0', id: this.id, result });
  }

  error(error: ModernError): void {
    const body = {
      jsonrpc: '2.0',
      ...(this.id !== undefined && { id: this.id }),
      error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) },
    };
    // On an open stream the status is already sent: the error travels as the stream's last message.
    if (!this.streaming && !this.ended) this.response.status(error.status);
    this.finish(body);
  }

  private finish(message: Record<string, unknown>): void {
    if (this.ended) return;
    if (this.streaming) {
      this.write(message);
      this.response.end();
    } else {
      this.response.json(message);
    }
    this.ended = true;
  }

  private write(message: Record<string, unknown>): void {
    if (this.ended) return;
    this.response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
