import { randomBytes } from 'node:crypto';

/** One class of hostile text: a name and a generator for a given size in characters. */
export interface HostileClass {
  name: string;
  make(size: number): string;
}

const repeat = (unit: string, size: number) => unit.repeat(Math.max(1, Math.floor(size / unit.length)));

/** Letters without spaces, so no tokenizer or splitter finds a boundary (the BPE worst case). */
function randomLetters(size: number): string {
  const bytes = randomBytes(size);
  let out = '';
  for (let i = 0; i < size; i++) out += String.fromCharCode(97 + (bytes[i] % 26));
  return out;
}

/**
 * The input classes the sweep feeds through every entry point: runs of one character class, bracket nesting,
 * long lines without separators, unicode edge cases and huge numbers of tiny items.
 */
export const HOSTILE_CLASSES: HostileClass[] = [
  { name: 'run of one letter', make: (size) => repeat('a', size) },
  { name: 'random letters, no separator', make: randomLetters },
  { name: 'run of digits', make: (size) => repeat('7', size) },
  { name: 'run of punctuation', make: (size) => repeat('.,;:!?', size) },
  { name: 'run of open brackets', make: (size) => repeat('[', size) },
  { name: 'nested brackets', make: (size) => repeat('[', size / 2) + repeat(']', size / 2) },
  { name: 'run of whitespace', make: (size) => `x${repeat(' \t', size)}x` },
  { name: 'long base64 line', make: (size) => randomBytes(Math.floor((size * 3) / 4)).toString('base64') },
  { name: 'combining marks on one letter', make: (size) => `a${repeat('\u0301', size)}` },
  { name: 'zero-width and bidi controls', make: (size) => repeat('a\u200b\u202e\u2066', size) },
  { name: 'astral emoji and lone surrogates', make: (size) => repeat('\u{1F600}\ud800x', size) },
  { name: 'many tiny lines', make: (size) => repeat('a\n', size) },
];

/** The class's text shaped as a file of each type the upload path parses. */
export function asFile(type: string, text: string): string {
  switch (type) {
    case 'txt':
    case 'md':
      return text;
    case 'csv':
      return `id,body\n1,"${text.replace(/"/g, '""')}"\n`;
    case 'json':
      return text.startsWith('[') ? text : JSON.stringify({ body: text });
    case 'html':
      return `<html><body><p>${text.replace(/</g, '&lt;')}</p></body></html>`;
    default:
      throw new Error(`No file shape for ${type}`);
  }
}

/** A JSON value nested `depth` arrays deep, built without recursion. */
export function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** `count` tiny properties in one object. */
export function manyKeys(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"k${i}":${i}`);
  return `{${parts.join(',')}}`;
}
