import { Injectable } from '@nestjs/common';
import { FilePartRepository } from './file-part.repository';

/** Bytes per stored part: an upload holds at most one part in memory while it streams in. */
export const PART_SIZE = 1024 * 1024;

/**
 * File bytes in the database (file_search_file_parts), written part by part as an upload streams in and
 * read back one part at a time, so no path holds a file in memory more than once.
 */
@Injectable()
export class FilePartsStore {
  constructor(private readonly parts: FilePartRepository) {}

  /** Stores the stream's bytes and returns how many there were; stops storing past `maxBytes`. */
  async write(fileId: string, stream: AsyncIterable<Buffer>, maxBytes: number): Promise<{ bytes: number }> {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let seq = 0;
    let bytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const data = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await this.parts.insert(fileId, seq++, data);
    };
    for await (const chunk of stream) {
      bytes += chunk.length;
      // Past the limit the rest is only counted: the upload is refused, and the stream must still be drained.
      if (bytes > maxBytes) continue;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= PART_SIZE) await flush();
    }
    if (bytes <= maxBytes) await flush();
    return { bytes };
  }

  /** The file's parts in order. */
  async *read(fileId: string): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const part = await this.parts.find(fileId, seq);
      if (!part) return;
      yield part;
    }
  }

  /** The whole file in one buffer of its exact size (parsers need it whole). */
  async readAll(fileId: string, bytes: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(bytes);
    let offset = 0;
    for await (const part of this.read(fileId)) {
      if (offset + part.length > bytes) throw new Error(`File ${fileId} has more bytes stored than recorded`);
      part.copy(buffer, offset);
      offset += part.length;
    }
    if (offset !== bytes) throw new Error(`File ${fileId} has ${offset} bytes stored, ${bytes} recorded`);
    return buffer;
  }
}
