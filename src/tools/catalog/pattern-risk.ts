/**
 * Why a regular expression can take more than linear time on a backtracking engine (JavaScript's, Python's,
 * Java's: whatever the tool's own server validates with), or undefined. Looks for the constructs behind
 * catastrophic backtracking: a repeated group whose own repetition is not pinned down by a fixed atom
 * (`(a+)+`, `(\w+\s?)*`, while `(-[a-z]+)*` is fine), a repeated alternation whose branches start alike
 * (`(a|a)*`, `(a|ab)+`), backreferences and lookaround.
 *
 * One pass over the pattern with an explicit stack of open groups, so its cost is linear in the pattern's
 * length whatever the pattern (no regular expression, no recursion).
 */
export function nonLinearPatternRisk(pattern: string): string | undefined {
  const stack: Group[] = [newGroup()];
  let last: Atom | undefined;
  let i = 0;
  while (i < pattern.length) {
    const group = stack[stack.length - 1];
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if ((next >= '1' && next <= '9') || (next === 'k' && pattern[i + 2] === '<')) return 'a backreference';
      last = addAtom(group, `\\${next}`);
      i += 2;
    } else if (c === '[') {
      i = classEnd(pattern, i);
      last = addAtom(group, '[');
    } else if (c === '(') {
      const lookbehind = pattern[i + 1] === '?' && pattern[i + 2] === '<';
      const marker = lookbehind ? pattern[i + 3] : pattern[i + 1] === '?' ? pattern[i + 2] : '';
      if (marker === '=' || marker === '!') return 'lookaround';
      stack.push(newGroup());
      last = undefined;
      i = groupBodyStart(pattern, i);
    } else if (c === ')' && stack.length > 1) {
      const closed = stack.pop()!;
      closeAlternative(closed);
      const parent = stack[stack.length - 1];
      if (closed.repeats) parent.repeats = true;
      last = addAtom(parent, '(', closed);
      i += 1;
    } else if (c === '|') {
      closeAlternative(group);
      last = undefined;
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const { end, unbounded, exact } = quantifier(pattern, i);
      if (end === i) {
        last = addAtom(group, c);
        i += 1;
        continue;
      }
      if (unbounded && last?.inner?.repeats && last.inner.loose) return 'nested quantifiers';
      if (unbounded && last?.inner?.overlapping) return 'a repeated alternation whose branches overlap';
      if (unbounded) group.repeats = true;
      if (last?.fixed && !exact) group.fixedAtoms--;
      last = undefined;
      // A lazy marker belongs to the quantifier.
      i = pattern[end] === '?' ? end + 1 : end;
    } else {
      last = addAtom(group, c);
      i += 1;
    }
  }
  return undefined;
}

interface Group {
  /** Something inside repeats without bound. */
  repeats: boolean;
  /** An alternative has no fixed atom, so its repetitions can split a run of text in many ways. */
  loose: boolean;
  /** Two alternatives start with the same atom (or one with a wildcard). */
  overlapping: boolean;
  /** First atoms of the alternatives read so far (a set only once there are two: most groups have one). */
  firsts: string | Set<string> | undefined;
  /** First atom and count of fixed (unquantified, unambiguous) atoms of the alternative being read. */
  first: string | undefined;
  fixedAtoms: number;
}

interface Atom {
  inner?: Group;
  fixed: boolean;
}

function newGroup(): Group {
  return { repeats: false, loose: false, overlapping: false, firsts: undefined, first: undefined, fixedAtoms: 0 };
}

function addAtom(group: Group, key: string, inner?: Group): Atom {
  group.first ??= key;
  // A wildcard matches whatever comes next, so it pins nothing down.
  const fixed = key !== '.' && !(inner?.repeats && inner.loose);
  if (fixed) group.fixedAtoms++;
  return { inner, fixed };
}

function closeAlternative(group: Group): void {
  const first = group.first ?? '';
  if (group.firsts === undefined) {
    group.firsts = first;
  } else {
    if (typeof group.firsts === 'string') group.firsts = new Set([group.firsts]);
    if (group.firsts.has(first) || first === '.' || group.firsts.has('.')) group.overlapping = true;
    group.firsts.add(first);
  }
  if (group.fixedAtoms === 0) group.loose = true;
  group.first = undefined;
  group.fixedAtoms = 0;
}

/** Index of a group's first pattern character: after `(`, `(?:` or `(?<name>`. */
function groupBodyStart(pattern: string, open: number): number {
  if (pattern[open + 1] !== '?') return open + 1;
  if (pattern[open + 2] !== '<') return open + 3;
  const close = pattern.indexOf('>', open + 3);
  return close < 0 ? pattern.length : close + 1;
}

/** Index just past a character class starting at `start` (escapes and a leading `]` included). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1;
}

function digitsFrom(pattern: string, start: number): number {
  let i = start;
  while (i < pattern.length && pattern[i] >= '0' && pattern[i] <= '9') i++;
  return i;
}

/**
 * Where a quantifier starting at `start` ends (`start` itself when a `{` is a literal), whether it is
 * unbounded, and whether it is an exact count (`{3}`), which keeps an atom fixed.
 */
function quantifier(pattern: string, start: number): { end: number; unbounded: boolean; exact: boolean } {
  const c = pattern[start];
  if (c !== '{') return { end: start + 1, unbounded: c !== '?', exact: false };
  const lowerEnd = digitsFrom(pattern, start + 1);
  const literal = { end: start, unbounded: false, exact: false };
  if (lowerEnd === start + 1) return literal;
  if (pattern[lowerEnd] === '}') return { end: lowerEnd + 1, unbounded: false, exact: true };
  if (pattern[lowerEnd] !== ',') return literal;
  const upperEnd = digitsFrom(pattern, lowerEnd + 1);
  if (pattern[upperEnd] !== '}') return literal;
  return { end: upperEnd + 1, unbounded: upperEnd === lowerEnd + 1, exact: false };
}
