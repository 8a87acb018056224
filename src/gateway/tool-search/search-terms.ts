/**
 * Terms for tool search. Tool names are identifiers (`github-create_issue`, `listPullRequests`), so a
 * name is split at "_", "-", "." and camelCase humps as well as at spaces; every term is lower-cased and
 * reduced by a light suffix stripping (plurals, -ing, -ed, a final -e) so that "issues", "creating" and
 * "create" meet "issue" and "created". Linear in the input: one pass of a fixed regex, no backtracking.
 */
const WORD = /[A-Za-z0-9]+/g;
const HUMP = /([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])/g;

/** Words of every query and index text that say nothing about what a tool does. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from get give has have how i in into is it its me my need of on ' +
    'or our please show some that the their them then there these this to tool tools us use want we what when ' +
    'where which who will with you your'
  ).split(' '),
);

/** Splits identifiers and prose into words, before stemming and stop-word removal. */
export function words(text: string): string[] {
  return text.replace(HUMP, '$1$3 $2$4').match(WORD) ?? [];
}

/** A word as the index and the queries store it, or null for a stop word. */
export function term(word: string): string | null {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  return stem(lower);
}

function stem(word: string): string {
  if (word.length <= 3 || /^[0-9]+$/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith('ies') && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('sses')) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !stemmed.endsWith('ss') && !stemmed.endsWith('us')) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith('ing') && stemmed.length > 5) stemmed = stemmed.slice(0, -3);
  else if (stemmed.endsWith('ed') && stemmed.length > 4) stemmed = stemmed.slice(0, -2);
  if (stemmed.endsWith('e') && stemmed.length > 4) stemmed = stemmed.slice(0, -1);
  return stemmed;
}
