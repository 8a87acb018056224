import { createInflateRaw } from 'node:zlib';
import { IngestionError } from './ingestion-error';
import { describeBytes } from './parse-limits';

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_SIZE = 46;
const LOCAL_SIGNATURE = 0x04034b50;
const LOCAL_SIZE = 30;
const ZIP64_EXTRA_ID = 0x0001;
const U32_MAX = 0xffffffff;
const STORED = 0;
const DEFLATED = 8;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const invalid = (why: string) => new IngestionError('invalid_file', `The DOCX file cannot be read: ${why}`);

export const expandsTooFar = (maxBytes: number) =>
  new IngestionError(
    'file_too_large',
    `The document expands to more than ${describeBytes(maxBytes)} when decompressed ` +
      '(builtins.file_search.max_decompressed_size)',
  );

/**
 * Refuses a zip (DOCX) that would expand beyond `maxBytes` before any parser inflates it: first by the sizes
 * its central directory declares, then by inflating each entry into a counter (nothing kept) and stopping as
 * soon as an entry yields more than it declared, since a bomb can lie in its headers. The parser afterwards
 * inflates exactly these entries, so its work is bounded by the same sum.
 *
 * Written here rather than with a zip library: the parsers (mammoth, through jszip) inflate whole entries with
 * no limit, and all this check needs is the central directory's sizes plus zlib's streaming inflate, which
 * Node has; a second zip reader would add a dependency to run the same two steps.
 */
export async function checkZipExpansion(bytes: Buffer, maxBytes: number): Promise<void> {
  const entries = readCentralDirectory(bytes);
  let declared = 0;
  for (const entry of entries) {
    declared += entry.uncompressedSize;
    if (declared > maxBytes) throw expandsTooFar(maxBytes);
  }
  for (const entry of entries) {
    const data = entryData(bytes, entry);
    if (entry.method === STORED) {
      if (data.length !== entry.uncompressedSize) throw invalid(`${entry.name} has inconsistent sizes`);
    } else if (entry.method === DEFLATED) {
      await inflateAtMost(data, entry.uncompressedSize, maxBytes);
    } else {
      throw invalid(`${entry.name} uses an unsupported compression method (${entry.method})`);
    }
  }
}

function readCentralDirectory(bytes: Buffer): ZipEntry[] {
  const eocd = findEndOfCentralDirectory(bytes);
  let count = bytes.readUInt16LE(eocd + 10);
  let offset = bytes.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === U32_MAX) ({ count, offset } = readZip64End(bytes, eocd));
  // Each entry takes at least CENTRAL_SIZE bytes, so a count the file cannot hold is a lie, not a loop bound.
  if (count > (bytes.length - offset) / CENTRAL_SIZE) throw invalid('the zip directory is truncated');
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + CENTRAL_SIZE > bytes.length || bytes.readUInt32LE(offset) !== CENTRAL_SIGNATURE) {
      throw invalid('the zip directory is corrupt');
    }
    const nameLength = bytes.readUInt16LE(offset + 28);
    const extraLength = bytes.readUInt16LE(offset + 30);
    const commentLength = bytes.readUInt16LE(offset + 32);
    const end = offset + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (end > bytes.length) throw invalid('the zip directory is truncated');
    const entry: ZipEntry = {
      name: bytes.toString('utf8', offset + CENTRAL_SIZE, offset + CENTRAL_SIZE + nameLength),
      method: bytes.readUInt16LE(offset + 10),
      compressedSize: bytes.readUInt32LE(offset + 20),
      uncompressedSize: bytes.readUInt32LE(offset + 24),
      localHeaderOffset: bytes.readUInt32LE(offset + 42),
    };
    const extraStart = offset + CENTRAL_SIZE + nameLength;
    applyZip64Extra(entry, bytes.subarray(extraStart, extraStart + extraLength));
    entries.push(entry);
    offset = end;
  }
  return entries;
}

/** The record sits at the end, after at most a 64 KB comment: a bounded backwards scan. */
function findEndOfCentralDirectory(bytes: Buffer): number {
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = bytes.length - EOCD_SIZE; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) === EOCD_SIGNATURE) return at;
  }
  throw invalid('it is not a zip archive');
}

function readZip64End(bytes: Buffer, eocd: number): { count: number; offset: number } {
  const locator = eocd - 20;
  if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR_SIGNATURE) {
    throw invalid('the zip directory is corrupt');
  }
  const at = safeNumber(bytes.readBigUInt64LE(locator + 8));
  if (at + 56 > bytes.length || bytes.readUInt32LE(at) !== ZIP64_EOCD_SIGNATURE) {
    throw invalid('the zip64 directory is corrupt');
  }
  return { count: safeNumber(bytes.readBigUInt64LE(at + 32)), offset: safeNumber(bytes.readBigUInt64LE(at + 48)) };
}

/** ZIP64 moves sizes that do not fit 32 bits into an extra field, in this order. */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  const needs = [entry.uncompressedSize, entry.compressedSize, entry.localHeaderOffset].some((v) => v === U32_MAX);
  if (!needs) return;
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    const body = extra.subarray(at + 4, at + 4 + size);
    at += 4 + size;
    if (id !== ZIP64_EXTRA_ID) continue;
    let field = 0;
    const next = () => {
      if (field + 8 > body.length) throw invalid(`${entry.name} has a truncated zip64 field`);
      const value = safeNumber(body.readBigUInt64LE(field));
      field += 8;
      return value;
    };
    if (entry.uncompressedSize === U32_MAX) entry.uncompressedSize = next();
    if (entry.compressedSize === U32_MAX) entry.compressedSize = next();
    if (entry.localHeaderOffset === U32_MAX) entry.localHeaderOffset = next();
    return;
  }
  throw invalid(`${entry.name} lacks its zip64 sizes`);
}

function entryData(bytes: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeaderOffset;
  if (at + LOCAL_SIZE > bytes.length || bytes.readUInt32LE(at) !== LOCAL_SIGNATURE) {
    throw invalid(`${entry.name} has no local header`);
  }
  const start = at + LOCAL_SIZE + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  if (start + entry.compressedSize > bytes.length) throw invalid(`${entry.name} is truncated`);
  return bytes.subarray(start, start + entry.compressedSize);
}

/** Inflates into a counter; stops the moment the output passes what the entry declared. */
function inflateAtMost(data: Buffer, declared: number, maxBytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw();
    let produced = 0;
    inflate.on('data', (chunk: Buffer) => {
      produced += chunk.length;
      if (produced > declared) {
        inflate.destroy();
        reject(produced > maxBytes ? expandsTooFar(maxBytes) : invalid('an entry expands beyond its declared size'));
      }
    });
    inflate.on('error', (error) => reject(invalid(error.message)));
    inflate.on('end', () => resolve());
    inflate.end(data);
  });
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('a zip size is out of range');
  return Number(value);
}
