/**
 * BPE merging (js-tiktoken's bytePairMerge) is quadratic in the length of one pre-tokenized piece, and
 * cl100k's pre-tokenizer makes a whole run of one character class a single piece: 64 KB of `a`, a CSV field
 * of one long word, 200 KB of `[`. So runs are cut every MAX_RUN characters before the tokenizer sees
 * them, which bounds every piece (a run plus one leading and trailing character) and makes tokenizing
 * linear. Ordinary text is not touched: cl100k has no token of letters or digits this long, and a cut run of
 * spaces or punctuation costs at most one token per cut.
 */
export const MAX_RUN = 32;

/** Text handed to the tokenizer at once; cuts fall before a space when one is near, where it splits anyway. */
export const SEGMENT_CHARS = 16 * 1024;

/**
 * At most this much of a long run is matched at once: a greedy quantifier keeps a backtrack entry per
 * character, and V8 throws "Maximum call stack size exceeded" on a run of millions. A longer run is simply
 * matched again where the last match ended.
 */
const RUN_MATCH_MAX = 4096;

/**
 * A run of one class (letters, digits, whitespace, anything else) longer than MAX_RUN. No nested quantifier:
 * a failed attempt scans at most MAX_RUN characters, so the whole search is linear.
 */
const LONG_RUN = new RegExp(
  ['\\p{L}', '\\p{N}', '\\s', '[^\\s\\p{L}\\p{N}]'].map((cls) => `${cls}{${MAX_RUN + 1},${RUN_MATCH_MAX}}`).join('|'),
  'gu',
);

/** The text in consecutive segments for the tokenizer, each at most SEGMENT_CHARS and no run over MAX_RUN. */
export function* tokenizerSegments(text: string): Generator<string> {
  let start = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    const runEnd = run.index + run[0].length;
    let cut = boundary(text, run.index + MAX_RUN);
    yield* windows(text, start, cut);
    while (runEnd - cut > MAX_RUN) {
      const next = boundary(text, cut + MAX_RUN);
      yield text.slice(cut, next);
      cut = next;
    }
    start = cut;
  }
  yield* windows(text, start, text.length);
}

/** Cuts [start, end) into segments of at most SEGMENT_CHARS, before a space in the second half when there is one. */
function* windows(text: string, start: number, end: number): Generator<string> {
  while (start < end) {
    let cut = Math.min(end, start + SEGMENT_CHARS);
    if (cut < end) {
      const half = start + SEGMENT_CHARS / 2;
      // Searched within the window only: lastIndexOf on the whole text would rescan it back to the start.
      const space = text.slice(half, cut).lastIndexOf(' ');
      cut = space >= 0 ? half + space : boundary(text, cut);
    }
    yield text.slice(start, cut);
    start = cut;
  }
}

/** `index`, or one further when it would fall between the two halves of a surrogate pair. */
function boundary(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}
