import { decodeHTML } from 'entities';
import { INVISIBLE_GLOBAL, PLAIN_TEXT } from '../review/hidden-text';

/** Nothing any decoder below would change: no escape, percent sign, entity or non-ASCII character. */
const NOTHING_ENCODED = /^[\t\n\r\x20-\x24\x27-\x5b\x5d-\x7e]*$/;
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const JSON_SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;
/** Encodings hidden one inside another (`%2526` is `&` percent-encoded twice) are undone this many times. */
const MAX_ROUNDS = 3;

/**
 * Cyrillic and Greek letters drawn like Latin ones, which NFKC leaves alone: `раssword` with a Cyrillic
 * `р` and `а` reads as `password` to a person and must to the redactor too. Only letters that look the same
 * in common fonts; no maintained confusables table on the registry is kept up to date with Unicode.
 */
const LOOKALIKE_LETTERS = 'авеһіјкмнорстухѕԁԛԝӏıɑɡАВЕКМНОРСТХЅІЈαορνικτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ';
const AS_LATIN = 'abehijkmhopctyxsdqwliagABEKMHOPCTXSIJaopviktuxABEZHIKMNOPTYX';
const LOOKALIKES = new Map([...LOOKALIKE_LETTERS].map((letter, index) => [letter, AS_LATIN[index]]));
const LOOKALIKE = new RegExp(`[${LOOKALIKE_LETTERS}]`, 'g');

/**
 * `text` as a reader would see it: JSON string escapes, percent-encoding and HTML entities undone (up to
 * MAX_ROUNDS layers), width and compatibility forms folded (NFKC), invisible characters dropped and
 * lookalike letters read as Latin, so `{\"password\":\"x\"}`, `pass%77ord=x`, `password&#61;x` and
 * `ｐａｓｓｗｏｒｄ=x` all show their `password=x`. Each layer is one linear pass; plain text costs one test.
 */
export function revealedText(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS && !NOTHING_ENCODED.test(current); round++) {
    const next = foldedLookalikes(decodeHTML(percentDecoded(jsonUnescaped(current))));
    if (next === current) break;
    current = next;
  }
  return current;
}

function jsonUnescaped(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(JSON_ESCAPE, (_, hex: string | undefined, simple: string) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : (JSON_SIMPLE_ESCAPES[simple] ?? simple),
  );
}

function percentDecoded(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Not UTF-8: no text hides there.
      return run;
    }
  });
}

function foldedLookalikes(text: string): string {
  if (PLAIN_TEXT.test(text)) return text;
  return text
    .normalize('NFKC')
    .replace(INVISIBLE_GLOBAL, '')
    .replace(LOOKALIKE, (letter) => LOOKALIKES.get(letter)!);
}
