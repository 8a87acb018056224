/**
 * Control characters (terminal escape sequences among them), zero-width characters, bidi controls, tag characters,
 * invisible operators, fillers and variation selectors.
 */
export const INVISIBLE_SOURCE =
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u115F\\u1160\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\u206A-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB]' +
  '|\\u034F|\\u17B4|\\u17B5|\\p{Variation_Selector}|[\\u{E0000}-\\u{E007F}]|[\\u{1D173}-\\u{1D17A}]';
export const INVISIBLE_GLOBAL = new RegExp(INVISIBLE_SOURCE, 'gu');
/** Printable ASCII, tabs and line breaks: nothing hidden, nothing for NFKC to fold (most texts; a fast path). */
export const PLAIN_TEXT = /^[\t\n\r\x20-\x7e]*$/;

/** Describes the hidden characters in a text, or '' if there are none worth flagging. */
export function hiddenCharacters(text: string): string {
  if (PLAIN_TEXT.test(text)) return '';
  // Emoji legitimately use a zero-width joiner between pictographs and one variation selector after a symbol.
  const stripped = text
    .replace(/(\p{Extended_Pictographic}\p{Emoji_Modifier}?)\uFE0F?\u200D(?=\p{Extended_Pictographic})/gu, '$1')
    .replace(/([\p{Extended_Pictographic}\p{Emoji}\u2190-\u2BFF])[\uFE0E\uFE0F](?!\p{Variation_Selector})/gu, '$1');
  const found = stripped.match(INVISIBLE_GLOBAL);
  if (!found) return '';
  const codes = [...new Set(found.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`))];
  return `${found.length} × ${codes.slice(0, 4).join(', ')}${codes.length > 4 ? ', …' : ''}`;
}

/** Base64, hex or escape sequences long enough to carry a hidden message; URLs and identifiers excluded. */
export function encodedBlob(text: string): string | undefined {
  // A scheme is short: an unbounded one would rescan a long dotted run ("a.a.a…") from each of its words.
  const withoutUrls = text
    .replace(/\b[a-z][a-z0-9+.-]{0,31}:\/\/\S+/gi, ' ')
    .replace(/data:[\w/+.-]+;base64,\S+/gi, ' ');
  for (const match of withoutUrls.matchAll(/[A-Za-z0-9+/_-]{40,}={0,2}/g)) {
    const run = match[0];
    const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((c) => c.test(run)).length;
    if (classes >= 2 && entropy(run) >= 4.2 && !/^[a-z0-9]+([_/-][a-z0-9]+)+$/i.test(run) && !camelCaseWords(run))
      return run;
    if (/^[0-9a-f]{48,}$/i.test(run) && run.length !== 64) return run;
  }
  return /(\\x[0-9a-fA-F]{2}){8,}|(\\u[0-9a-fA-F]{4}){8,}|(%[0-9a-fA-F]{2}){12,}/.exec(withoutUrls)?.[0];
}

export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

/** "ErrorAttachmentSizeShouldNotBeLessThanMinimumSize": an error code or type name spelled in capitalised words. */
function camelCaseWords(run: string): boolean {
  const capitals = run.length - run.replace(/[A-Z]/g, '').length;
  return capitals * 3 <= run.length && /^[a-z]*$/.test(run.replace(/[A-Z][a-z]+/g, ''));
}
