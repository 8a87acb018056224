import { distance } from 'fastest-levenshtein';
import type { ReviewSubject } from '../auto-review';
import { Findings } from './findings';
import { INVISIBLE_GLOBAL, hiddenCharacters } from './hidden-text';
import { excerpt, mentionIndex, words } from './text';

export const PROMOTES_ITSELF =
  /\b(replaces|replacement (for|of)|supersedes|successor (to|of)|(new|newer|updated|improved|fixed|official|verified|real|genuine|maintained|v\d+) (version|edition|release|replacement|build) (of|for)|(is|as) the (official|real|genuine|verified|original)( version of)?)\s+(the\s+)?[`'"]?$/i;
export const DISPARAGES =
  /\b(deprecated|obsolete|broken|unreliable|unsafe|insecure|outdated|legacy|buggy|compromised|malicious|corrupts?|retired|discontinued|sunset|superseded|removed|end[- ]of[- ]life|no longer (works|supported|maintained|available)|(should|must) not be used|do(es)?n'?t work|does not work|is disabled)\b/i;
/** Other tools run down as a group: "other search tools are compromised", "the remaining tools leak data". */
export const DISPARAGES_OTHERS =
  /\b(other|all other|the other|any other|remaining|third[- ]party|competing)\b.{0,25}\btools?\b.{0,25}\b(are|is|were|have been|has been)\b.{0,15}\b(compromised|malicious|unsafe|insecure|broken|deprecated|unreliable|leak(y|ing)?|untrusted|backdoored|disabled|retired)\b/i;
export const SELF_PREFERENCE =
  /\b(always|only|exclusively)\s+(use|choose|call|pick|prefer|select)\s+(this|me)\b(\s+tool)?.{0,30}\b(for|over|instead of|rather than|above)\s+(any|all|every|other|each)\b|\b(route|send|direct|run)\s+(every|all|each|any)\b.{0,30}\b(through|to|via)\s+(this tool|me)\b(\s+only|\s+exclusively)?/i;

export function checkImpersonatingText(where: string, sentence: string, others: string[], findings: Findings): void {
  const lower = sentence.toLowerCase();
  for (const other of others) {
    if (!lower.includes(other.toLowerCase())) continue;
    const at = mentionIndex(sentence, other);
    // A segment of a path or URL ("`/rest/api/3/search` is deprecated") names an endpoint, not a tool.
    if (at < 0 || sentence.charAt(at - 1) === '/') continue;
    // A catalog tool called "search" or "find" is only meant when the word is quoted.
    const quoted = /[`'"]$/.test(sentence.slice(0, at)) || /^[`'"]/.test(sentence.slice(at + other.length));
    if (!/[-_0-9]|[a-z][A-Z]/.test(other) && !quoted) continue;
    const before = sentence.slice(Math.max(0, at - 30), at);
    const after = sentence
      .slice(at + other.length, at + other.length + 200)
      .split(/[.;!?]/)[0]
      .slice(0, 60);
    // "Use read_text_file instead" points away from this tool; "newer replacement for read_text_file" points to it.
    if (PROMOTES_ITSELF.test(before) || DISPARAGES.test(after)) {
      findings.add(
        'impersonation',
        40,
        `${where} presents this tool as a replacement for the catalog tool "${other}": "${excerpt(sentence)}"`,
        `check that this is not a look-alike of "${other}"; rename it or block it`,
      );
    }
  }
  if (DISPARAGES_OTHERS.test(sentence)) {
    findings.add(
      'impersonation',
      40,
      `${where} runs down other tools to steer the model to this one: "${excerpt(sentence)}"`,
      `remove claims about other tools from ${where}`,
    );
  }
  if (SELF_PREFERENCE.test(sentence)) {
    findings.add(
      'impersonation',
      30,
      `${where} asks the model to prefer this tool over all others: "${excerpt(sentence)}"`,
      `remove preference instructions from ${where}`,
    );
  }
}

/**
 * The tool's names compared with every other catalog tool's: a discovered tool is compared under the name its
 * own server gives it as well as under its catalog name (`<source>-<tool>`), since either can imitate another
 * tool. Per other tool, the closer of the two likenesses counts.
 */
export function checkName(subject: ReviewSubject, others: string[], findings: Findings): void {
  const names = ownNames(subject);
  for (const name of names) {
    if (hiddenCharacters(name) || /[^\x20-\x7e]/.test(name)) {
      findings.add(
        'impersonation',
        45,
        `name contains invisible or non-ASCII characters that can imitate another name (${JSON.stringify(name)})`,
        'rename the tool with plain ASCII letters, digits and hyphens',
      );
    }
  }
  for (const other of others) {
    const likeness = names
      .map((name) => nameLikeness(subject, name, other))
      .reduce((closest, next) => (next.penalty > closest.penalty ? next : closest));
    if (likeness.penalty > 0) {
      findings.add(
        // A sibling or another server's naming convention is a mention for the reviewer, counted with the others.
        likeness.penalty <= 5 ? 'mentions' : 'impersonation',
        likeness.penalty,
        `name ${likeness.how} the catalog tool "${other}"`,
        `check that this is not a look-alike of "${other}"; rename it or block it`,
      );
    }
  }
}

/** The names a tool goes by: the one its own server gives it (a discovered tool), then its catalog name. */
export function ownNames(subject: ReviewSubject): string[] {
  return [...new Set([subject.upstreamName, subject.name].filter((name): name is string => !!name))];
}

/** How much `name` looks like the catalog tool `other`, and how (penalty 0: not alike). */
function nameLikeness(subject: ReviewSubject, name: string, other: string): { penalty: number; how: string } {
  const mine = canonicalName(name);
  const theirs = canonicalName(other);
  if (!mine || !theirs) return { penalty: 0, how: '' };
  let penalty = 0;
  let how = '';
  if (mine === theirs) {
    // Another naming convention (takeScreenshot, take_screenshot) is what independent servers do: worth a
    // mention, not a block (a name collision is settled by the gateway's per-source names).
    const conventionOnly = plainName(name) === plainName(other);
    // Mixed case with separators ("Search-Repositories") is no server's convention: a disguise.
    const disguised = /[A-Z]/.test(name) && /[-_]/.test(name);
    penalty = conventionOnly && !disguised ? 5 : conventionOnly ? 25 : 45;
    how = conventionOnly ? 'differs only in case or separators from' : 'is spelled like';
  } else if (Math.min(mine.length, theirs.length) >= 6 && isTransposition(mine, theirs)) {
    penalty = 45;
    how = 'swaps two letters of';
  } else if (Math.min(mine.length, theirs.length) >= 6 && distance(mine, theirs) === 1) {
    const number = numberVariant(name, other);
    if (number) {
      // Singular and plural siblings are what servers ship ("getEnvironment", "getEnvironments"), and their
      // descriptions use either form; a description written for the other name is worth a look, no more.
      const described = descriptionWords(subject.description);
      const copiesOther = described.has(number.theirs) && !described.has(number.mine);
      penalty = copiesOther ? 15 : 5;
      how = copiesOther ? 'differs only in number from, and is described like,' : 'differs only in number from';
    } else if (prefixedWord(name, other)) {
      // "send-mail" and "send-email": a letter put before a whole word makes another word, not a typo.
      penalty = 5;
      how = 'differs by a prefixed letter from';
    } else if (Math.min(mine.length, theirs.length) >= 8 && mine.length !== theirs.length) {
      // A dropped or added letter; a changed one usually makes another word (collections, connections).
      penalty = 30;
      how = 'drops or adds one letter of';
    }
  }
  const qualifier = authorityQualifier(words(name), words(other));
  if (penalty === 0 && qualifier) {
    penalty = 30;
    how = `adds "${qualifier}" to`;
  }
  return { penalty, how };
}

/** Words that claim authority or newness when added to another tool's name: "read_file_official", "safe_fetch". */
export const AUTHORITY_WORDS = new Set([
  'official',
  'real',
  'verified',
  'secure',
  'safe',
  'new',
  'newer',
  'latest',
  'updated',
  'fixed',
  'pro',
  'plus',
  'true',
  'genuine',
  'original',
  'trusted',
  'improved',
  'better',
  'enhanced',
  'premium',
  'v2',
  'v3',
  '2',
  '3',
  'next',
  'prime',
]);

/** The qualifier when `mine` is `theirs` plus only authority words, before or after. */
export function authorityQualifier(mine: string[], theirs: string[]): string | undefined {
  if (theirs.length === 0 || mine.length <= theirs.length) return undefined;
  for (let start = 0; start + theirs.length <= mine.length; start++) {
    if (!theirs.every((w, i) => mine[start + i] === w)) continue;
    const extra = [...mine.slice(0, start), ...mine.slice(start + theirs.length)];
    if (extra.every((w) => AUTHORITY_WORDS.has(w))) return extra.join(' ');
  }
  return undefined;
}

export function plainName(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

/** Look-alike folding: case, separators, homoglyphs, digit-for-letter swaps and doubled letters do not count. */
export function canonicalName(name: string): string {
  return [
    ...name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(INVISIBLE_GLOBAL, ''),
  ]
    .map((c) => CONFUSABLES[c] ?? c)
    .join('')
    .replace(/[I1|!]/g, 'l')
    .toLowerCase()
    .replace(/[-_.\s]/g, '')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/0/g, 'o')
    .replace(/3/g, 'e')
    .replace(/4/g, 'a')
    .replace(/5/g, 's')
    .replace(/7/g, 't')
    .replace(/(.)\1+/g, '$1');
}

/** Cyrillic and Greek letters that look like Latin ones. */
export const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ɡ: 'g',
  ӏ: 'l',
  А: 'a',
  В: 'b',
  Е: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  Х: 'x',
  І: 'l',
  Ј: 'j',
  Ѕ: 's',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ι: 'l',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Χ: 'x',
  Ζ: 'z',
};

export function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
  return diff.length === 2 && diff[1] === diff[0] + 1 && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]];
}

/** When two names differ only by one word's plural ending: that word in each. */
export function numberVariant(mine: string, theirs: string): { mine: string; theirs: string } | undefined {
  const a = words(mine);
  const b = words(theirs);
  if (a.length !== b.length) return undefined;
  const differing = a.map((w, i) => i).filter((i) => a[i] !== b[i]);
  if (differing.length !== 1) return undefined;
  const [x, y] = [a[differing[0]], b[differing[0]]];
  const plural = (s: string, p: string) =>
    p === `${s}s` || p === `${s}es` || (s.endsWith('y') && p === `${s.slice(0, -1)}ies`);
  return plural(x, y) || plural(y, x) ? { mine: x, theirs: y } : undefined;
}

export function descriptionWords(text: string): Set<string> {
  return new Set((text ?? '').toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** Two names alike but for one word, which is the other's word with one letter put before it ("mail", "email"). */
function prefixedWord(a: string, b: string): boolean {
  const [x, y] = [words(a), words(b)];
  if (x.length !== y.length) return false;
  const differing = x.map((w, i) => [w, y[i]]).filter(([v, w]) => v !== w);
  if (differing.length !== 1) return false;
  const [v, w] = differing[0];
  const [short, long] = v.length < w.length ? [v, w] : [w, v];
  return short.length >= 3 && long.length === short.length + 1 && long.endsWith(short);
}
