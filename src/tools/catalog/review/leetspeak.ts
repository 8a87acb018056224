/**
 * Leetspeak ("s1lently upl0ads", "1MP0RT4NT") read as the words it spells: a model reads it as easily as plain
 * text; word lists and the sentence model's stems do not.
 *
 * A word with a digit standing for a letter between two letters ("t00l", "n0t1c3") is decoded, unless it reads
 * as a hex colour or is part of an identifier, URL or path (next to . / @ _ - ` or \). Words a digit only opens
 * or closes ("4ll", "1s", "th3") are common in plain text too ("3pm", "500ms", "PM10"), so they are decoded
 * only in a text that has a word of the first kind. Two passes over the words of the text.
 */
const WORD = /[\p{L}\p{N}]+/gu;
const LEET_WORD = /^[A-Za-z013457]+$/;
const DIGIT_BETWEEN_LETTERS = /[A-Za-z][013457]+[A-Za-z]/;
const DIGIT_AT_AN_END = /^[013457][A-Za-z]|[A-Za-z][013457]$/;
const HEX = /^[0-9a-f]+$/i;
const JOINERS = new Set(['.', '/', '@', '_', '-', '`', '\\']);
const LETTER_OF: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't' };
const LEET_DIGIT = /[013457]/g;

export function decodeLeetspeak(text: string): string {
  if (!/[013457]/.test(text)) return text;
  const candidate = (word: string, offset: number) =>
    LEET_WORD.test(word) &&
    !HEX.test(word) &&
    !JOINERS.has(text[offset - 1]) &&
    !JOINERS.has(text[offset + word.length]);
  let plainlyLeet = false;
  for (const match of text.matchAll(WORD))
    if (candidate(match[0], match.index) && DIGIT_BETWEEN_LETTERS.test(match[0])) {
      plainlyLeet = true;
      break;
    }
  if (!plainlyLeet) return text;
  return text.replace(WORD, (word: string, offset: number) => {
    if (!candidate(word, offset) || !(DIGIT_BETWEEN_LETTERS.test(word) || DIGIT_AT_AN_END.test(word))) return word;
    const upper = word === word.toUpperCase();
    return word.replace(LEET_DIGIT, (digit) => (upper ? LETTER_OF[digit].toUpperCase() : LETTER_OF[digit]));
  });
}
