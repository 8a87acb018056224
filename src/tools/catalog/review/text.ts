/** Sentences and list items: instructions are judged within the sentence that carries them. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)|(?<=:)\s*\n/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

/**
 * Every match of a global pattern. `String.prototype.matchAll` copies the RegExp on each call, which for
 * the many patterns tried on every sentence cost more than the matching itself.
 */
export function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    found.push(match);
    if (match[0] === '') pattern.lastIndex++;
  }
  pattern.lastIndex = 0;
  return found;
}

export function excerpt(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Words of an identifier or phrase: camelCase, snake_case, kebab-case and digits split apart, lower case. */
export function words(name: string): string[] {
  return (name ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+|(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])/)
    .filter(Boolean);
}

export function mentionIndex(text: string, name: string): number {
  const match = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}(?![\\w-])`, 'i').exec(text);
  return match ? match.index + match[1].length : -1;
}

export function hostOf(url: string): string | undefined {
  try {
    return new URL(url.replace(/[{}<>[\]$]/g, 'x')).hostname;
  } catch {
    return undefined;
  }
}

/** One regular expression matching any of the alternatives, each written as its own pattern source. */
export function anyOf(flags: string, alternatives: string[], prefix = ''): RegExp {
  return new RegExp(`${prefix}(?:${alternatives.map((source) => `(?:${source})`).join('|')})`, flags);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
