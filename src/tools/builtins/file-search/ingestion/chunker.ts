import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

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

/** Text is tokenized a window at a time, so a large file never becomes one huge token array. */
const WINDOW_CHARS = 64 * 1024;

/**
 * Splits text into chunks of at most `size` tokens, each starting `size - overlap` tokens after the last
 * (OpenAI's static chunking). Yields as it goes; memory stays proportional to one window.
 */
export function* chunkText(text: string, size: number, overlap: number): Generator<Chunk> {
  const enc = tokenizer();
  const step = size - overlap;
  let tokens: number[] = [];
  let index = 0;
  // How many tokens at the start of `tokens` were already emitted in the previous chunk.
  let emitted = 0;
  for (const window of windows(text)) {
    tokens = tokens.concat(enc.encode(window));
    while (tokens.length >= size) {
      yield { index: index++, text: decode(enc, tokens.slice(0, size)), tokens: size };
      tokens = tokens.slice(step);
      emitted = size - step;
    }
  }
  // The rest, unless it is only the overlap already carried by the last chunk.
  if (tokens.length > emitted || (index === 0 && tokens.length > 0)) {
    yield { index, text: decode(enc, tokens), tokens: tokens.length };
  }
}

/** Cuts text before a space near each window's end, where the tokenizer would split anyway. */
function* windows(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + WINDOW_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + WINDOW_CHARS / 2) end = space;
    }
    yield text.slice(start, end);
    start = end;
  }
}

/** Token boundaries can fall inside a multi-byte character; the broken halves are dropped. */
function decode(enc: Tiktoken, tokens: number[]): string {
  return enc.decode(tokens).replace(/^\uFFFD+|\uFFFD+$/g, '');
}
