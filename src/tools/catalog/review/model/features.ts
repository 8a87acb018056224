import { INVISIBLE_GLOBAL } from '../hidden-text';
import { decodeLeetspeak } from '../leetspeak';
import { addressesModel, isDirective } from '../sentence';
import { conceptsOf } from './concepts';

/**
 * Features of one sentence for the learned sentence model (sentence-model.ts). What a poisoned sentence says
 * is told apart from how it says it: tool names, URLs, paths, e-mail addresses, account numbers and figures
 * become placeholders, so that "call fx_settle_v3 first" and "invoke syncCredentials first" look alike, and
 * words are cut to their first letters, so that "invoke", "invoked" and "invoking" count as one. Features are
 * hashed into a fixed space (no vocabulary to ship). One pass over the sentence: linear in its length.
 */

/** The hashed feature space: 2^20 slots keep collisions rare for a few hundred thousand distinct features. */
export const FEATURE_BITS = 20;
const FEATURE_MASK = (1 << FEATURE_BITS) - 1;
/** A word is cut to this many letters: a cheap stemmer that needs no word list per language. */
const STEM_LENGTH = 5;
/** Sentences longer than this are read up to here: poisoned sentences are short; the cost stays bounded. */
export const MAX_SENTENCE = 600;

const URL = /^(?:[a-z][a-z0-9+.-]{1,10}:\/\/|www\.)/i;
const EMAIL = /^[^@\s]{1,64}@[^@\s]{1,255}\.[a-z]{2,}$/i;
const PATH = /^(?:~|\.{1,2})?\/|^[a-z]:\\|^\$[A-Z_]+\/|^\.[a-z]/i;
const IDENTIFIER = /[a-z0-9]_[a-z0-9]|[a-z][A-Z]|^[a-z0-9]+(?:-[a-z0-9]+){2,}$|^[a-z0-9]+(?:\.[a-z0-9_]+)+\(?\)?$/;
const NUMBER = /^[$€£¥]?\d[\d,.:%]*[kmx%]?$/i;
/** Account numbers, wallet addresses, keys: long runs mixing letters and digits. */
const CODE = /^(?=.{8,})(?=.*\d)(?=.*[a-z])[a-z0-9-]+$/i;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
const MARKUP = /^[[<{(#*!>|=-]+/;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}~$./\\@]+|[^\p{L}\p{N}/]+$/gu;
const COMBINING_MARKS = /\p{M}+/gu;
const SUB_WORDS = /[\p{L}]{2,}/gu;
const LETTERS = /^[\p{L}']+$/u;

/** Latin lookalikes from Cyrillic and Greek, used to dodge word lists ("ехfiltrate" with a Cyrillic е and х). */
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  х: 'x',
  у: 'y',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ɡ: 'g',
  һ: 'h',
  ο: 'o',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'g');
/** Letters spaced out to dodge word lists: "i g n o r e" (five letters or more). */
const SPACED_LETTERS = /\b(?:\p{L} ){4,}\p{L}\b/gu;

/**
 * The text a model reads: compatibility forms folded, invisible characters and accents removed, lookalikes mapped,
 * leetspeak decoded.
 */
export function normalizeSentence(sentence: string): string {
  return decodeLeetspeak(
    sentence
      .slice(0, MAX_SENTENCE)
      .normalize('NFKD')
      .replace(COMBINING_MARKS, '')
      .replace(INVISIBLE_GLOBAL, '')
      .replace(LOOKALIKE, (c) => LOOKALIKES[c])
      .replace(SPACED_LETTERS, (run) => run.replace(/ /g, '')),
  );
}

/** The sentence as a list of terms: placeholders, markers and stems, in order. */
export function terms(sentence: string, conceptsSeen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const raw of normalizeSentence(sentence).split(/\s+/)) {
    if (!raw) continue;
    const markup = MARKUP.exec(raw)?.[0];
    if (markup && /[[<{]/.test(markup))
      out.push(`<open${markup.includes('[') ? '[' : markup.includes('<') ? '<' : '{'}>`);
    const token = raw.replace(EDGE_PUNCTUATION, '');
    if (!token) continue;
    if (URL.test(token)) out.push('<url>');
    else if (EMAIL.test(token)) out.push('<email>');
    else if (PATH.test(token) && token.length > 2) out.push('<path>', ...subWords(token));
    else if (NUMBER.test(token)) out.push('<num>');
    else if (IDENTIFIER.test(token)) out.push('<ident>');
    else if (CODE.test(token)) out.push('<code>');
    else if (CJK.test(token))
      for (let i = 0; i + 1 < token.length; i++) {
        out.push(token.slice(i, i + 2));
        conceptsOf(token.slice(i, i + 2), conceptsSeen);
      }
    else if (LETTERS.test(token)) {
      if (token.length >= 3 && token === token.toUpperCase() && token !== token.toLowerCase()) out.push('<caps>');
      out.push(stem(token));
      conceptsOf(token.toLowerCase(), conceptsSeen);
    } else out.push(...subWords(token));
  }
  return out;
}

function subWords(token: string): string[] {
  return (token.match(SUB_WORDS) ?? []).map(stem);
}

function stem(word: string): string {
  return word.toLowerCase().replace(/'.*$/, '').slice(0, STEM_LENGTH);
}

/**
 * Hashed feature indices of a sentence: its terms, adjacent pairs, pairs one apart, and its opening term and
 * pair (an order opens with its verb: "Always call …", "Send the …"). Duplicates are kept out.
 */
export function sentenceFeatures(sentence: string): number[] {
  const concepts = new Set<string>();
  const t = terms(sentence, concepts);
  // The sentence-level reading the rule checks share: an order, and one addressed to the model.
  if (isDirective(sentence)) concepts.add('<order>');
  if (addressesModel(sentence)) concepts.add('<addressed>');
  if (t.includes('<ident>')) concepts.add('<names-tool>');
  const found = new Set<number>();
  // Concepts alone and in pairs: "<must> <send> <secret>" is what an exfiltration order says in any words.
  const seen = [...concepts].sort();
  for (let i = 0; i < seen.length; i++) {
    found.add(hash(seen[i]));
    for (let j = i + 1; j < seen.length; j++) found.add(hash(`${seen[i]}&${seen[j]}`));
  }
  if (t.length) {
    found.add(hash(`^${t[0]}`));
    if (t.length > 1) found.add(hash(`^${t[0]} ${t[1]}`));
  }
  for (let i = 0; i < t.length; i++) {
    found.add(hash(t[i]));
    if (i + 1 < t.length) found.add(hash(`${t[i]} ${t[i + 1]}`));
    if (i + 2 < t.length) found.add(hash(`${t[i]} _ ${t[i + 2]}`));
  }
  return [...found];
}

/** FNV-1a, 32 bits, folded into the feature space. */
function hash(feature: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & FEATURE_MASK;
}
