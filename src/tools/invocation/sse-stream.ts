import type { Response } from 'express';

/** A Server-Sent Events answer: each event has an `event:` name and a JSON `data:` line carrying `type`. */
export class SseStream {
  private sequence = 0;

  constructor(private readonly response: Response) {}

  get started(): boolean {
    return this.response.headersSent;
  }

  start(): void {
    this.response.status(200);
    this.response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.response.setHeader('Cache-Control', 'no-cache, no-transform');
    this.response.setHeader('Connection', 'keep-alive');
    this.response.setHeader('X-Accel-Buffering', 'no');
    this.response.flushHeaders();
  }

  send(type: string, payload: Record<string, unknown>): void {
    if (this.response.writableEnded) return;
    const data = JSON.stringify({ type, sequence_number: this.sequence++, ...payload });
    this.response.write(`event: ${type}\ndata: ${data}\n\n`);
  }

  /** OpenAI's terminator, then the end of the response. */
  end(): void {
    if (this.response.writableEnded) return;
    this.response.write('data: [DONE]\n\n');
    this.response.end();
  }
}
