import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { tokenizerSegments } from './tokenizer-segments';

/** cl100k_base, the tokenizer of OpenAI's embedding models; its ranks ship inside the npm package. */
let encoder: Tiktoken | undefined;
export function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(cl100k);
  return encoder;
}

export interface Chunk {
  index: number;
  text: string;
  tokens: number;
}

/**
 * Splits text into chunks of at most `size` tokens, each starting `size - overlap` tokens after the last
 * (OpenAI's static chunking). Yields as it goes: memory stays proportional to one segment and one chunk,
 * and the cost is linear in the text (see tokenizer-segments.ts for why the tokenizer needs help with that).
 */
export function* chunkText(
  text: string,
  size: number,
  overlap: number,
  onProgress: (charactersTokenized: number) => void = () => undefined,
): Generator<Chunk> {
  const enc = tokenizer();
  const step = size - overlap;
  let tokens: number[] = [];
  let index = 0;
  // How many tokens at the start of `tokens` were already emitted in the previous chunk.
  let emitted = 0;
  let tokenized = 0;
  for (const segment of tokenizerSegments(text)) {
    // Special tokens such as <|endoftext|> in a document are plain text, never control tokens or an error.
    for (const token of enc.encode(segment, [], [])) tokens.push(token);
    tokenized += segment.length;
    onProgress(tokenized);
    if (tokens.length < size) continue;
    let offset = 0;
    while (tokens.length - offset >= size) {
      yield { index: index++, text: decode(enc, tokens.slice(offset, offset + size)), tokens: size };
      offset += step;
      emitted = size - step;
    }
    // One copy per segment of what is left (fewer than `size` tokens), not one per chunk of the whole array.
    tokens = tokens.slice(offset);
  }
  // The rest, unless it is only the overlap already carried by the last chunk.
  if (tokens.length > emitted || (index === 0 && tokens.length > 0)) {
    yield { index, text: decode(enc, tokens), tokens: tokens.length };
  }
}

const REPLACEMENT = 0xfffd;

/**
 * Token boundaries can fall inside a multi-byte character; the broken halves (U+FFFD at either end) are
 * dropped. A loop rather than a `\uFFFD+$` regex, whose cost is quadratic in a text full of U+FFFD.
 */
function decode(enc: Tiktoken, tokens: number[]): string {
  const text = enc.decode(tokens);
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === REPLACEMENT) start++;
  while (end > start && text.charCodeAt(end - 1) === REPLACEMENT) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
