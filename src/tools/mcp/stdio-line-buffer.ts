import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The stdio transport's read buffer, linear in what the server writes: the SDK's own (ReadBuffer) copies the
 * whole pending line on every chunk and searches it again for a newline, which took 22 s of event loop for the
 * first 10 MB of one hostile line. Here each chunk is searched once and each line copied once; a line still
 * unfinished past `maxBytes` is dropped with the SDK's own error, which the transport reports before closing.
 */
export class StdioLineBuffer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly lines: Buffer[] = [];

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      this.pending.push(chunk.subarray(start, end));
      this.lines.push(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
      start = end + 1;
    }
    if (start === chunk.length) return;
    this.pending.push(chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    return line === undefined ? null : deserializeMessage(line.toString('utf8').replace(/\r$/, ''));
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.lines.length = 0;
  }
}
