import { parse as parseCsv } from 'csv-parse/sync';
import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import { extname } from 'node:path';
import { PDFParse } from 'pdf-parse';
import { IngestionError } from './ingestion-error';
import type { ParseLimits } from './parse-limits';
import { checkZipExpansion } from './zip-limits';

type Parser = (bytes: Buffer, limits: ParseLimits) => Promise<string>;

const utf8 = (bytes: Buffer): string => {
  if (bytes.includes(0)) throw new IngestionError('invalid_file', 'The file is not text: it contains NUL bytes');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new IngestionError('invalid_file', 'The file is not valid UTF-8 text');
  }
};

const text: Parser = async (bytes) => utf8(bytes);

const html: Parser = async (bytes) =>
  htmlToText(utf8(bytes), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  });

/** Each row as "header: value" pairs, so a chunk keeps the meaning of its cells. */
const csv: Parser = async (bytes) => {
  let rows: string[][];
  try {
    rows = parseCsv(utf8(bytes), { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
  } catch (error) {
    if (error instanceof IngestionError) throw error;
    throw new IngestionError('invalid_file', `The CSV file cannot be parsed: ${(error as Error).message}`);
  }
  const [header = [], ...body] = rows;
  if (body.length === 0) return header.join(', ');
  return body.map((row) => row.map((cell, i) => (header[i] ? `${header[i]}: ${cell}` : cell)).join(', ')).join('\n');
};

/** Nesting a JSON file may have: re-indenting it recurses once per level, and its output grows with the square. */
export const MAX_JSON_DEPTH = 1000;

const json: Parser = async (bytes) => {
  const source = utf8(bytes);
  if (nestsDeeperThan(source, MAX_JSON_DEPTH)) {
    throw new IngestionError('invalid_file', `The JSON file nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.stringify(JSON.parse(source), null, 2);
  } catch (error) {
    if (error instanceof IngestionError) throw error;
    throw new IngestionError('invalid_file', `The JSON file cannot be parsed: ${(error as Error).message}`);
  }
};

/** One pass over the text, counting brackets outside strings: the depth is known before anything recurses. */
function nestsDeeperThan(source: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The page count comes from the document's page tree, before any page is read: text extraction costs per page. */
const pdf: Parser = async (bytes, limits) => {
  const parser = new PDFParse({ data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) });
  try {
    const { total } = await parser.getInfo();
    if (total > limits.maxPages) {
      throw new IngestionError(
        'file_too_large',
        `The PDF has ${total} pages; at most ${limits.maxPages} are indexed per file (builtins.file_search.max_pages)`,
      );
    }
    const result = await parser.getText({ pageJoiner: '' });
    return result.text;
  } catch (error) {
    if (error instanceof IngestionError) throw error;
    throw new IngestionError('invalid_file', `The PDF file cannot be read: ${(error as Error).message}`);
  } finally {
    // Freeing the parser's memory; the text (or the error above) is the result either way.
    await parser.destroy().catch(() => undefined);
  }
};

const docx: Parser = async (bytes, limits) => {
  await checkZipExpansion(bytes, limits.maxDecompressedBytes);
  try {
    return (await mammoth.extractRawText({ buffer: bytes })).value;
  } catch (error) {
    throw new IngestionError('invalid_file', `The DOCX file cannot be read: ${(error as Error).message}`);
  }
};

/** Parsers by file extension: the formats file_search indexes. */
const PARSERS: Record<string, Parser> = {
  '.txt': text,
  '.text': text,
  '.md': text,
  '.markdown': text,
  '.html': html,
  '.htm': html,
  '.csv': csv,
  '.json': json,
  '.pdf': pdf,
  '.docx': docx,
};

export const SUPPORTED_EXTENSIONS = Object.keys(PARSERS);

/**
 * The text of a file, chosen by its extension. Unknown formats fail with `unsupported_file`; a file that
 * cannot be read as its format claims, or holds no text, with `invalid_file`; one past `limits`, with `file_too_large`.
 * Runs inside a document thread (document-thread.ts), which enforces the time and memory limits.
 */
export async function extractText(filename: string, bytes: Buffer, limits: ParseLimits): Promise<string> {
  const extension = extname(filename).toLowerCase();
  const parser = PARSERS[extension];
  if (!parser) {
    const kind = extension ? `Files of type ${extension}` : 'Files without an extension';
    throw new IngestionError(
      'unsupported_file',
      `${kind} are not supported for file search; supported: ${SUPPORTED_EXTENSIONS.join(', ')}`,
    );
  }
  const raw = await parser(bytes, limits);
  if (raw.length > limits.maxExtractedCharacters) {
    throw new IngestionError(
      'file_too_large',
      `The file yields more than ${limits.maxExtractedCharacters} characters of text ` +
        '(builtins.file_search.max_extracted_characters)',
    );
  }
  // Postgres text cannot hold NUL; other control characters are noise for search.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const extracted = raw.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');
  if (!/\S/.test(extracted)) throw new IngestionError('invalid_file', 'The file contains no text to index');
  return extracted;
}
