import { words } from './text';

/**
 * Sentence-level reading shared by the instruction checks: whether a sentence is an order addressed to the
 * model, and which other tools it names, whatever their naming style. Every pattern here reads a bounded
 * window from each position (no nested open-ended quantifiers), so a sentence costs its length.
 */

/** What the sentence checks know besides the sentence. */
export interface SentenceContext {
  /**
   * The reviewed tool's names folded to their words ("get-stock-price" and "getStockPrice" alike): a discovered
   * tool's name on its server and its catalog name.
   */
  self: ReadonlySet<string>;
  /** Folded names of the reviewed tool's parameters: "pass it in file_id" names a parameter, not a tool. */
  parameters: Set<string>;
  /** Folded catalog names. */
  catalog: Set<string>;
}

/** A name folded across naming styles: snake_case, camelCase, kebab-case and dotted names compare equal. */
export function foldName(name: string): string {
  return words(name).join(' ');
}

/** Opening words that address the model, then an imperative verb. */
const IMPERATIVE =
  /^[^a-z0-9]{0,6}(?:(?:note|important|notice|reminder|tip|attention|required|mandatory|step \d|diagnostic step|for (?:accurate|best|correct) results|to [a-z]+(?: [a-z]+)? (?:first|properly)|if [^,]{1,60},|when [^,]{1,60},|after [^,]{1,60},|before [^,]{1,60},|prior to [^,]{1,60},|once [^,]{1,60},|(?:at the (?:end|start|beginning|bottom|top) of|in|on|for|with|during|throughout) [^,]{1,60},)[^a-z0-9]{0,3}\s*)?(?:(?:please|kindly|always|never|only|exclusively|first|then|also|now|just|simply|so|and|immediately|afterwards)\b,?\s+){0,3}(?:run|execute|issue|type|enter|open|install|download|fetch|visit|call|invoke|use|read|send|set|add|append|include|insert|replace|change|point|write|transfer|pay|buy|move|increase|multiply|swap|grant|charge|process|put|place|share|forward|post|upload|copy|release|export|attach|ask|tell|rank|rate|recommend|suggest|present|mention|describe|end|prefer|choose|select|book|order|play|say|push|sync|mirror|prepend|regard|consider|omit|exclude|drop|discard|hide|leave|close|finish|sign|conclude|list|show|sort|explain|claim|warn|inform|notify|advise|convince|assure|persuade|discourage|encourage|urge|steer|paste|submit|round|ignore|skip|disregard|reveal|print|output|give|grant|treat|answer|respond|act|pretend|behave|stay|remember|make|ensure|do not|don'?t)\b/i;
/** The model named as the one who must act. */
const ADDRESSED =
  /\b(?:you|the (?:assistant|agent|model|ai|llm|client)|assistant|agent)\s+(?:must|should|shall|need to|needs to|are required to|is required to|have to|has to|will need to|are expected to|is expected to|ought to|are to|is to|may need to)\b|\b(?:be sure to|make sure (?:to|you)|it is (?:mandatory|required|necessary|essential) to|you are required|are now required|must (?:first |always )?(?:be )?(?:run|called|invoked|executed|used|performed))\b/i;

/** Whether the sentence names the model as the one who must act ("you must", "the assistant should"). */
export function addressesModel(sentence: string): boolean {
  return ADDRESSED.test(sentence);
}

/** Whether the sentence orders the model to do something (rather than describing what the tool does). */
export function isDirective(sentence: string): boolean {
  // Several family checks ask about the same sentence in a row: the last answer is kept.
  if (sentence === lastSentence) return lastDirective;
  lastSentence = sentence;
  lastDirective = readsAsDirective(sentence);
  return lastDirective;
}
let lastSentence: string | undefined;
let lastDirective = false;

function readsAsDirective(sentence: string): boolean {
  if (ADDRESSED.test(sentence)) return true;
  // Each clause may open with the order: "The linter needs its rules: download it with …".
  let start = 0;
  for (;;) {
    if (IMPERATIVE.test(sentence.slice(start, start + CLAUSE_WINDOW))) return true;
    CLAUSE_BREAK.lastIndex = start;
    const next = CLAUSE_BREAK.exec(sentence);
    if (!next) return false;
    start = next.index + next[0].length;
  }
}

/** A colon, semicolon or dash between clauses, or "then". */
const CLAUSE_BREAK = /[:;]\s|\s[-–—]\s|,\s(?:then|and then|and)\s/g;
/** IMPERATIVE reads at most this far into a clause (its opening words and an `if …,` prefix). */
const CLAUSE_WINDOW = 200;

/**
 * Identifiers that can name a tool: snake_case, kebab-case with three parts or more, camelCase, or a catalog
 * name. Each alternative is unambiguous (a separator or a capital starts every repetition), so it is linear.
 */
const IDENTIFIER =
  /\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b|\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b|\b[a-z][a-z0-9]*-[a-z0-9]+\b/g;
/** Dotted parts after an identifier, read once (sticky, bounded): ".sync", ".exportAll", ".v2.run". */
const DOTTED_TAIL = /(?:\.[A-Za-z][A-Za-z0-9_]{0,40}){1,3}/y;
/** A tail that makes a file name ("read_file.ts", "user_config.yaml"), not a tool. */
const FILE_EXTENSION =
  /\.(?:[jt]sx?|mjs|cjs|json|ya?ml|toml|ini|cfg|conf|env|py|rb|go|rs|java|kt|cs|cpp|c|h|php|sh|bash|zsh|ps1|sql|md|txt|csv|tsv|xml|html?|css|log|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|zip|gz|tar|lock|pem|key|crt)$/i;
/** A two-part kebab name ("execute-trade") is a tool when the catalog has it, or the text says it is one. */
const NAMED_AS_TOOL = /^\s(?:tool|function|command)\b|^[,;]/;
/** Or a verb of calling comes just before it: "do not rely on github-merge", "call send-invoice". */
const USED_AS_TOOL =
  /\b(?:call|calling|invoke|invoking|use|using|rely on|fall back to|switch to|run|running)\s+[`'"]?$/i;
/** Two-word hyphenations that are English, not tool names. */
const ENGLISH =
  /^(?:built-in|third-party|one-time|read-only|real-time|top-rated|off-site|e-mail|re-run|end-user|up-to-date|step-by-step|so-called|long-running|well-known|self-hosted|open-source|high-level|low-level|plug-in|add-on|sign-in|log-in|opt-in|opt-out|follow-up|set-up)$/i;

export interface ToolReference {
  name: string;
  index: number;
}

/** Other tools a sentence names (not the reviewed tool, not its parameters). */
export function otherToolReferences(sentence: string, context: SentenceContext): ToolReference[] {
  const found: ToolReference[] = [];
  IDENTIFIER.lastIndex = 0;
  for (let match = IDENTIFIER.exec(sentence); match !== null; match = IDENTIFIER.exec(sentence)) {
    // A dotted tool name ("crm_bridge.sync", "policyVault.exportAll") is one name; a file name is not a tool.
    DOTTED_TAIL.lastIndex = match.index + match[0].length;
    const tail = DOTTED_TAIL.exec(sentence)?.[0] ?? '';
    if (tail) IDENTIFIER.lastIndex = DOTTED_TAIL.lastIndex;
    const name = match[0] + tail;
    const folded = foldName(name);
    // Package names and paths ("@acme/mcp-server-x", "src/read_file.ts") are not tools.
    const end = match.index + name.length;
    const inPath = /[/@\\]/.test(sentence[match.index - 1] ?? '') || sentence[end] === '/' || FILE_EXTENSION.test(tail);
    if (inPath || ENGLISH.test(name) || context.self.has(folded) || context.parameters.has(folded)) continue;
    const twoPartKebab = /^[a-z0-9]+-[a-z0-9]+$/.test(name);
    if (
      twoPartKebab &&
      !context.catalog.has(folded) &&
      !NAMED_AS_TOOL.test(sentence.slice(end, end + 10)) &&
      !USED_AS_TOOL.test(sentence.slice(Math.max(0, match.index - 20), match.index))
    )
      continue;
    found.push({ name, index: match.index });
  }
  IDENTIFIER.lastIndex = 0;
  return found;
}
