import { distance } from 'fastest-levenshtein';
import type { AutoReviewResult, Permission } from './catalog.types';
import { nonLinearPatternRisk } from './pattern-risk';

/** What the automated checks look at. */
export interface ReviewSubject {
  name: string;
  description: string;
  schema: unknown;
  outputSchema?: unknown;
  permissions: Permission[];
  /** MCP tool annotations (`title`, `readOnlyHint`, `destructiveHint`, ...), when the tool has any. */
  annotations?: Record<string, unknown>;
}

/**
 * Seed 001's automated checks, extended. Two families of findings:
 *
 * - Attack surface (the seed's checklist): unrestricted strings, parameters taking code, paths or URLs,
 *   secrets passed as arguments, risky permission sets. Most real tools have some surface, so these
 *   lower the score without sinking a tool on their own.
 * - Signs of malice, looked for in the description and in every text of both schemas (descriptions,
 *   titles, defaults, examples, enum values): text addressed to the model that hides things from the
 *   user, overrides other instructions, redirects other tools or asks for data the tool has no business
 *   with; endpoints that data is sent to; hidden or encoded text; executable payloads; capabilities the
 *   description does not admit to; names or descriptions that imitate another catalog tool.
 *   Ordinary usage guidance ("you must call X first", "IMPORTANT: do not call more than 3 times",
 *   "do not put API keys in the query") is not a sign of malice and is not flagged.
 *
 * The score starts at 100; each finding takes off a penalty, capped per kind, so that many small
 * issues of one kind cannot sink a tool alone.
 */
export function autoReview(subject: ReviewSubject, otherToolNames: string[] = []): AutoReviewResult {
  const findings = new Findings();
  const others = [...new Set(otherToolNames)].filter((other) => other !== subject.name);
  const texts = [
    { where: 'description', text: subject.description ?? '' },
    ...schemaTexts(subject.schema, '$'),
    ...schemaTexts(subject.outputSchema, 'output $'),
  ];
  const parameters = allParameters(subject.schema, '$');

  checkParameters(subject, parameters, findings);
  checkPermissions(subject, parameters, findings);
  checkPatterns(subject.schema, '$', findings);
  checkPatterns(subject.outputSchema, 'output $', findings);
  // Compiled once: a schema can carry thousands of texts.
  const selfName = subject.name ? new RegExp(`(^|[^\\w-])${escapeRegExp(subject.name)}(?![\\w-])`, 'gi') : undefined;
  for (const { where, text } of texts) checkText(where, text, selfName, others, findings);
  checkName(subject, others, findings);

  return findings.summarize();
}

/** The longest tool output scanned: injections sit where a model reads first, and the cost stays bounded. */
export const OUTPUT_SCAN_LIMIT = 65_536;
/** What an injection in a tool's output can do to the model: instructions, hidden text, requests for data. */
const OUTPUT_KINDS: Kind[] = ['poisoning', 'exfiltration', 'impersonation'];

/**
 * The checks for text addressed to the model, applied to a tool's *result* (an MCP tool's output is as
 * untrusted as its description). Only the first OUTPUT_SCAN_LIMIT characters are read, each a bounded
 * number of times. Surface findings (parameters, permissions, mere mentions of URLs) do not apply.
 */
export function scanOutputText(text: string): AutoReviewResult {
  const findings = new Findings(OUTPUT_KINDS);
  checkText('tool output', (text ?? '').slice(0, OUTPUT_SCAN_LIMIT), undefined, [], findings);
  return findings.summarize();
}

// ---------------------------------------------------------------------------------------------------
// Scoring

const CAPS = {
  unrestricted: 15,
  dangerous_parameter: 20,
  secret_parameter: 40,
  permissions: 50,
  hidden_capability: 50,
  poisoning: 100,
  exfiltration: 60,
  impersonation: 60,
  /** Patterns that a backtracking engine (the tool's own server may use one) can take exponential time on. */
  unsafe_pattern: 20,
  /** URLs, addresses and file names merely mentioned: documentation links are common. */
  mentions: 6,
};
type Kind = keyof typeof CAPS;

/** Surface findings together never take off more than this, so they alone leave a tool above 70. */
const SURFACE_KINDS: Kind[] = ['unrestricted', 'dangerous_parameter'];
const SURFACE_CAP = 20;

interface Finding {
  kind: Kind;
  penalty: number;
  flag: string;
  suggestion: string;
}

class Findings {
  private readonly list: Finding[] = [];
  private readonly flags = new Set<string>();

  /** `only`: the kinds of finding kept; the others are dropped (output scanning keeps the model-facing ones). */
  constructor(private readonly only?: Kind[]) {}

  add(kind: Kind, penalty: number, flag: string, suggestion: string): void {
    if (this.only && !this.only.includes(kind)) return;
    // The same finding reached through two routes (anyOf branches, repeated $defs) counts once.
    if (this.flags.has(flag)) return;
    this.flags.add(flag);
    this.list.push({ kind, penalty, flag, suggestion });
  }

  summarize(): AutoReviewResult {
    const byKind = new Map<Kind, number>();
    for (const f of this.list) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + f.penalty);
    let surface = 0;
    let penalty = 0;
    for (const [kind, total] of byKind) {
      const capped = Math.min(total, CAPS[kind]);
      if (SURFACE_KINDS.includes(kind)) surface += capped;
      else penalty += capped;
    }
    penalty += Math.min(surface, SURFACE_CAP);
    return {
      score: Math.max(0, 100 - penalty),
      flags: this.list.map((f) => f.flag),
      suggestions: [...new Set(this.list.map((f) => f.suggestion))],
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// Parameters

const FREE_TEXT_WORDS = new Set([
  'query',
  'prompt',
  'instruction',
  'instructions',
  'message',
  'text',
  'input',
  'content',
  'body',
]);
/** Name words of parameters that take code, commands, paths or URLs. */
const CODE_WORDS = new Set([
  'code',
  'script',
  'command',
  'cmd',
  'shell',
  'exec',
  'eval',
  'expression',
  'sql',
  'lambda',
]);
const PATH_WORDS = new Set(['path', 'paths', 'file', 'filename', 'filepath', 'dir', 'directory', 'folder']);
const URL_WORDS = new Set(['url', 'urls', 'uri', 'endpoint', 'webhook', 'callback', 'href', 'link', 'hook', 'host']);
/** A parameter description saying that its value is run as code. */
const RUNS_AS_CODE = anyOf('i', [
  String.raw`\b(evaluated|executed|interpreted|eval'?d|run|runs)\b.{0,40}\b(as|by|with|in)\b.{0,20}\b(code|javascript|js|python|bash|shell|sh|ruby|lua|perl|powershell|interpreter|expression|script)\b`,
  String.raw`\b(javascript|js|python|bash|shell|sh|ruby|lua|perl|powershell|node(js)?)\s+(code|script|snippet|expression|command|one-liner|function|lambda)s?\b`,
  String.raw`\b(snippets?|scripts?|expressions?|lambdas?|function body|code)\b.{0,40}\b(is |are |gets |get |will be |is then )?(evaluated|executed|run|interpreted|eval'?d)\b`,
  String.raw`\b(eval|exec)\b\s*(\(|with|on)|\b(arbitrary|any) (code|script|command|snippet)s?\b|\bshell command\b|\bcommand line\b`,
]);
const OTHER_DANGEROUS_DESCRIPTIONS =
  /\b(file ?path|path to (a|the) (file|directory|folder)|absolute path|url to (fetch|call|request)|webhook|sql (query|statement))\b/i;
/** What a tool says about itself when it does run code or commands. */
const ADMITS_EXECUTION =
  /\b(execut\w*|run(s|ning)?|eval\w*|interpret\w*|script\w*|code|commands?|shell|terminal|sql|quer(y|ies)|sandbox\w*|notebook|repl|kubectl|helm|jq|template\w*)\b/i;

/** Words of a secret-bearing parameter name, as lists of consecutive name words. */
const SECRET_WORD_SEQUENCES = [
  ['password'],
  ['passwd'],
  ['pwd'],
  ['passphrase'],
  ['secret'],
  ['apikey'],
  ['api', 'key'],
  ['token'],
  ['credential'],
  ['credentials'],
  ['private', 'key'],
  ['privatekey'],
  ['access', 'key'],
  ['secret', 'key'],
  ['auth'],
  ['authorization'],
  ['bearer'],
  ['cookie'],
  ['cookies'],
  ['ssn'],
  ['credit', 'card'],
  ['card', 'number'],
  ['cvv'],
  ['cvc'],
  ['pin'],
  ['otp'],
  ['totp'],
  ['mfa'],
  ['2fa'],
  ['mnemonic'],
  ['seed', 'phrase'],
  ['recovery', 'phrase'],
  ['recovery', 'code'],
];
const PAGINATION = /\b(pag(e|es|ing|ination)|cursor|continuation|next|offset|resume)\b/i;
/** Parameter names that ask for credential stores or the model's context (schema poisoning through names). */
const SENSITIVE_SOURCE_NAMES = [
  ['ssh'],
  ['id', 'rsa'],
  ['id', 'ed25519'],
  ['mcp', 'json'],
  ['aws', 'credentials'],
  ['env', 'file'],
  ['dotenv'],
  ['system', 'prompt'],
  ['saved', 'passwords'],
  ['browser', 'cookies'],
  ['chat', 'history'],
  ['conversation', 'history'],
];
/** Words before or after a secret word that make the parameter about the secret, not the secret itself. */
const NOT_THE_SECRET_BEFORE = new Set([
  'page',
  'next',
  'continuation',
  'pagination',
  'cursor',
  'sync',
  'max',
  'num',
  'count',
  'min',
  'limit',
]);
const NOT_THE_SECRET_AFTER = new Set([
  'name',
  'names',
  'id',
  'ids',
  'type',
  'types',
  'ref',
  'refs',
  'arn',
  'version',
  'label',
  'count',
  'length',
  'expiry',
  'expires',
  'ttl',
  'limit',
  'limits',
  'scope',
  'scopes',
  'method',
  'url',
  'uri',
  'endpoint',
  'provider',
  'mode',
]);
/** A parameter description that says the value is a secret ("Account password", "GitHub token"). */
const DESCRIBED_AS_SECRET =
  /^(\S+\s+){0,3}?(password|passphrase|pin|secret( access)? key|client secret|api key|access key|access token|personal access token|auth(entication)? token|bearer token|token|one-time (code|password)|recovery phrase|seed phrase|private key)\b/i;

function checkParameters(subject: ReviewSubject, parameters: ParameterInfo[], findings: Findings): void {
  const declaresSecrets = subject.permissions.includes('secret_access');
  const reachesOut = subject.permissions.includes('network_external') || subject.permissions.includes('network_access');
  const admitsExecution = ADMITS_EXECUTION.test(`${words(subject.name).join(' ')} ${subject.description}`);
  const dataProcessing = describedAsDataProcessing(subject);

  for (const p of parameters) {
    const nameWords = words(p.name);
    if (isString(p.schema) && !isRestricted(p.schema)) {
      const freeText = nameWords.some((w) => FREE_TEXT_WORDS.has(w));
      findings.add(
        'unrestricted',
        freeText ? 8 : 4,
        `parameter ${p.path} is an unrestricted string (no maxLength, pattern or enum)`,
        `add maxLength, pattern or enum to ${p.path}`,
      );
    }

    const runsAsCode = RUNS_AS_CODE.test(p.description);
    const takesCode = nameWords.some((w) => CODE_WORDS.has(w)) || runsAsCode;
    const takesLocation =
      nameWords.some((w) => PATH_WORDS.has(w) || URL_WORDS.has(w)) || OTHER_DANGEROUS_DESCRIPTIONS.test(p.description);
    if ((takesCode || takesLocation) && !isRestricted(p.schema, true)) {
      findings.add(
        'dangerous_parameter',
        10,
        `parameter ${p.path} takes code, a command, a path or a URL`,
        `confine ${p.path} (allow-listed values or a strict pattern) and review what the tool does with it`,
      );
    }
    if (runsAsCode && dataProcessing && !admitsExecution) {
      findings.add(
        'hidden_capability',
        30,
        `parameter ${p.path} is run as code, but the tool describes itself as data processing`,
        `treat the tool as a code-execution tool: confirm what runs ${p.path} and where, or block it`,
      );
    }

    const source = SENSITIVE_SOURCE_NAMES.find((sequence) => containsSequence(nameWords, sequence));
    if (source) {
      findings.add(
        'exfiltration',
        40,
        `parameter name ${p.path} asks for ${source.join(' ')} data, which the tool has no business with`,
        `remove ${p.path}; block the tool if it was not expected`,
      );
    }

    const describedAsSecret =
      isString(p.schema) && DESCRIBED_AS_SECRET.test(p.description) && !PAGINATION.test(p.description);
    if (isSecretName(nameWords) || describedAsSecret) {
      if (!declaresSecrets) {
        findings.add(
          'secret_parameter',
          reachesOut ? 35 : 20,
          `parameter ${p.path} takes a secret (password, key, token or code) but the tool does not declare secret_access` +
            (reachesOut ? ', and the tool can reach the network' : ''),
          `declare secret_access, or take the secret from the tenant credential store (source.credential_key) instead of an argument`,
        );
      }
    }
  }
}

function containsSequence(haystack: string[], sequence: string[]): boolean {
  for (let i = 0; i + sequence.length <= haystack.length; i++)
    if (sequence.every((w, j) => haystack[i + j] === w)) return true;
  return false;
}

/** First words of the secret sequences: most names contain none, and need not be matched against each sequence. */
const SECRET_FIRST_WORDS = new Set(SECRET_WORD_SEQUENCES.map((sequence) => sequence[0]));

function isSecretName(nameWords: string[]): boolean {
  if (!nameWords.some((w) => SECRET_FIRST_WORDS.has(w))) return false;
  for (const sequence of SECRET_WORD_SEQUENCES) {
    for (let i = 0; i + sequence.length <= nameWords.length; i++) {
      if (!sequence.every((w, j) => nameWords[i + j] === w)) continue;
      const before = nameWords[i - 1];
      const after = nameWords[i + sequence.length];
      if (before !== undefined && NOT_THE_SECRET_BEFORE.has(before)) continue;
      if (after !== undefined && NOT_THE_SECRET_AFTER.has(after)) continue;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Patterns

function checkPatterns(schema: unknown, path: string, findings: Findings): void {
  walk(schema, path, (node, nodePath) => {
    const patterns: [string, string][] = [];
    if (typeof node.pattern === 'string') patterns.push([`pattern of ${nodePath}`, node.pattern]);
    const patternProperties = node.patternProperties;
    if (patternProperties && typeof patternProperties === 'object' && !Array.isArray(patternProperties))
      for (const key of Object.keys(patternProperties)) patterns.push([`patternProperties of ${nodePath}`, key]);
    for (const [where, pattern] of patterns) {
      const risk = nonLinearPatternRisk(pattern);
      if (!risk) continue;
      findings.add(
        'unsafe_pattern',
        10,
        `${where} can take exponential time to match (${risk}): ${JSON.stringify(excerpt(pattern, 60))}`,
        `rewrite the ${where} without nested quantifiers, overlapping alternatives, backreferences or lookaround; a server that validates with it can be stalled by one request`,
      );
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Permissions

/** A tool whose stated purpose is pure data processing: formatting, conversion, validation, counting. */
const DATA_PROCESSING_PURPOSE =
  /^(\W*\w+\W+){0,2}?(format(s|ter|ting)?|pretty[- ]?print(s|er|ing)?|prettif(y|ies|ier)|beautif(y|ies|ier)|minif(y|ies|ier)|lint(s|er)?|validat(e|es|or)|clean(s|er)?|tid(y|ies)|normali[sz](e|es|er)|spell[- ]?check(s|er)?|counts?|hash(es)?|encod(e|es|er)|decod(e|es|er)|escap(e|es)|convert(s|er)?\b[^.]{0,40}\b(between|formats?|units?|to (json|yaml|csv|xml|markdown|html|text))|calculat(e|es|or)|computes?|render(s|er|ing)?|transform(s|er)?|pars(e|es|er)|slugif(y|ies))\b/i;
const NAMES_A_REMOTE =
  /\b(url|uri|https?|web|internet|online|remote|api|fetch\w*|download\w*|upload\w*|send\w*|post\w*|e-?mail\w*|slack|github|gitlab|cloud|server|service|search\w*|webhook|notif\w*|sync\w*|publish\w*|deploy\w*|external|network|browser|page|site|bucket|database|db|repo\w*|cluster|account|maps?|geo\w*|weather|stocks?|quotes?|rates?|price\w*)\b/i;
const DESTINATION_WORDS = new Set([
  'url',
  'uri',
  'endpoint',
  'webhook',
  'destination',
  'host',
  'hostname',
  'server',
  'callback',
  'recipient',
  'recipients',
  'to',
  'target',
  'bucket',
]);

/** Formatting, conversion, validation or counting, with no remote service named in the name or description. */
function describedAsDataProcessing(subject: ReviewSubject): boolean {
  const name = words(subject.name).join(' ');
  const description = (subject.description ?? '').trim();
  const claims = DATA_PROCESSING_PURPOSE.test(name) || DATA_PROCESSING_PURPOSE.test(description);
  return claims && !NAMES_A_REMOTE.test(`${name}. ${description}`);
}

function checkPermissions(subject: ReviewSubject, parameters: ParameterInfo[], findings: Findings): void {
  const has = (p: Permission) => subject.permissions.includes(p);
  if (has('network_external') && has('secret_access')) {
    findings.add(
      'permissions',
      35,
      'tool has both external network access and secret access',
      'split the tool, or restrict its network access to named domains',
    );
    const destination = parameters.find(
      (p) => words(p.name).some((w) => DESTINATION_WORDS.has(w)) && !isRestricted(p.schema, true),
    );
    if (destination) {
      findings.add(
        'permissions',
        15,
        `the caller chooses where the tool sends data (${destination.path}) while the tool can read secrets`,
        `pin ${destination.path} to allow-listed destinations`,
      );
    }
  }

  if (describedAsDataProcessing(subject)) {
    const unneeded = subject.permissions.filter((p) =>
      [
        'network_access',
        'network_external',
        'network_internal',
        'secret_access',
        'kubernetes_api',
        'database_access',
      ].includes(p),
    );
    for (const permission of unneeded) {
      findings.add(
        'permissions',
        20,
        `tool describes itself as local data processing but declares ${permission}`,
        `ask why a data-processing tool needs ${permission}; remove it or block the tool`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Text: descriptions, titles, defaults, examples and enum values of the tool and both schemas

/** Text that tells the model to keep something from the user. */
const CONCEALMENT: RegExp[] = [
  /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|no need to|without)\b.{0,40}\b((tell(ing)?|inform(ing)?|mention(ing)?|reveal(ing)?|disclos(e|ing))(?!\s+(the |any |your |their |an? )?([\w-]+ )?(keys?|tokens?|passwords?|secrets?|credentials?|pii)\b)|bring(ing)? (this|it|that) up|let(ting)? (them|the user|anyone) (know|see|notice|find out)|make (them|the user|anyone) aware|surfac(e|ing)|(notify(ing)?|alert(ing)?|warn(ing)?) (the user|them|the human|anyone))\b/i,
  /\b(user|human|person|operator|anyone|they)\b.{0,40}\b(should(n'?t| not)|must(n'?t| not)|need(s)? not|does(n'?t| not) need to|won'?t|will not|can'?t|cannot|is not to|are not to)\b.{0,30}\b(know|see|notice|be (made )?aware|find out|learn|be told)\b/i,
  /\b(secretly|covertly|quietly|silently|discreetly|surreptitiously|stealthily|invisibly|behind the (user'?s )?back)\b.{0,20}\b(send|forward|upload|copy|include|append|add|record|log|store|save|transmit|share|collect|cc|bcc|read|post|attach|pass|submit|mirror|put|place|insert|set|write)\w*/i,
  /\bkeep (this|it|that|these|them)\b.{0,20}\b(between (you|us)|secret|hidden|confidential|private|to yourself)\b|\bbetween you and (me|us|the tool)\b/i,
  /\b(skip|bypass|omit|don'?t ask for|do not ask for|no need (for|to ask for)|without (asking for|requesting))\b.{0,20}\b(confirmation|consent|approval|permission)\b/i,
  /\b(the )?user (has )?already (agreed|consented|approved|authori[sz]ed|confirmed|given (their )?(consent|permission))\b|\bpre-?(approved|authori[sz]ed|consented)\b/i,
  /\b(without|do not|don'?t|never)\s+(ask(ing)?|check(ing)? with|confirm(ing)? with|consult(ing)?)\s+(the user|anyone|them|a human)\b(?!\s+(to|for|about|which|whether|if)\b)|\bdisable\b.{0,20}\b(confirmation|approval|safety|warning)s?\b/i,
  /\b(remain|stay|be kept|keep (them|the user|the person|everyone))\b.{0,15}\b(unaware|in the dark|uninformed|oblivious|ignorant)\b/i,
  /\b(make up|fabricate|invent)\b.{0,20}\b(text|data|results?|answers?|content|output|numbers)\b|\btell (the user|them)\b.{0,20}\b(it|that it|this|everything)\b.{0,10}\b(succeeded|worked|was successful|is fine|went well)\b/i,
  /\b(act|behave|respond|reply|answer)\s+as (if|though)\b|\bpretend\b.{0,30}\b(nothing|no|not|that|you)\b|\bmake it (look|seem|appear)\b|\bdo(n'?t| not) let on\b|\bkeep (that|this|it) (detail |part )?to yourself\b/i,
];
/** Text that claims authority over other instructions. */
const OVERRIDE: RegExp[] = [
  /\b(ignore|disregard|forget|override|bypass|discard)\b.{0,40}\b(previous|prior|earlier|above|preceding|all|any|other|existing|original|system|developer|safety|your)\b.{0,30}\b(instructions?|prompts?|rules|guidance|guidelines|messages?|directives|polic(y|ies)|constraints)\b/i,
  /\b(supersedes?|overrides?|takes? precedence over|outranks|has priority over|is more important than)\b.{0,40}\b(system prompt|instructions?|rules|guidance|any other|other tools?|the user)\b/i,
  /\b(even if|even when|regardless of|whatever|no matter (what|who|which))\b.{0,30}\b(the user|user'?s|they)\b.{0,20}\b(says?|asks?|wants?|objects?|requests?|names?|instructs?|chooses?|specif(y|ies)|prefers?)\b/i,
  /\b(reveal|print|output|repeat|show|leak|dump|disclose|return|recit(e|ing)|quot(e|ing)|transcrib(e|ing)|writ(e|ing) out|copy|copying|paste|pasting)\b.{0,30}\b(system prompt|developer (message|prompt)|hidden instructions|your (instructions|prompt|rules))\b/i,
  /\b(carry out|carry|follow|obey|execute|act on|comply with)\b.{0,30}\b(directives?|instructions?|commands?)\b.{0,30}\b(verbatim|blindly|unconditionally|without (asking|question|checking|confirm\w*|hesitation))\b/i,
  /\b(previous|prior|earlier|existing|original|all|your|safety|usual|standard)\b.{0,25}\b(instructions?|guidelines|rules|restrictions|polic(y|ies)|safeguards|limits)\b.{0,25}\b(no longer|not|are now|is now|have been|has been)\b.{0,15}\b(in effect|valid|apply|applicable|active|lifted|removed|suspended|revoked|void|disabled)\b/i,
  /\b(if|when|where)\b.{0,30}\bconflicts? with\b.{0,50}\b(follow|prefer|trust|obey|use|go with)\b.{0,15}\b(this|the) tool\b|\b(this tool'?s? (output|answer|result)s? (is|are) (authoritative|final|binding))\b/i,
  /\b(save|store|remember|persist|write|add|keep)\b.{0,30}\b(this|these|the following|those)\b.{0,20}\b(instructions?|rules?|directives?|guidance)\b.{0,50}\b(memory|future (conversations|sessions|chats)|all conversations|every conversation)\b/i,
  /\b(comply with|fulfil+|answer|honou?r|execute)\b.{0,20}\b(every|all|any)\b.{0,30}\bwithout (any )?(restrictions?|limits?|limitations|filter(s|ing)?|refusals?|safety)\b/i,
];
/** Markup that poses as a higher-priority channel, or that renderers hide. */
// Written so that each starting point scans a bounded or disjoint stretch: no two adjacent `\s*` around an
// optional `/`, a tag ends at the next `<` or `>`, a run of `#` is tried from its first `#` only, and a line
// start skips only spaces and tabs (blank lines before it start a line of their own).
const FAKE_CHANNEL: RegExp[] = [
  /<\s*(?:\/\s*)?(important|system|sys|instructions?|secret|hidden|admin|assistant|critical|urgent|priority|override|directive|rules?|prompt|im_start|im_end)\b[^<>]*>/i,
  /\[\s*(?:\/\s*)?(system|inst|admin|important|sys)\s*\]|<<\s*\/?sys\s*>>|(?<!#)#{2,}\s*(system|instructions?)\b/i,
  /(^|\n)[^\S\n]*(system|assistant|sys)\s*:/i,
];
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/;

/** Verbs that move data into an argument or out of the conversation. */
const MOVE =
  /\b(read|open|cat|include|attach|append|prepend|embed|insert|put|place|pass|provide|fill|populate|paste|send|sent|upload|forward|post|transmit|share|mirror|leak|exfiltrate|bcc|cc|e-?mail|gather|collect|harvest|dump|record|log|add|give|given|hand over|report|carry|recite|quote|transcribe|repeat)(s|es|d|ed|ing)?\b|\b(suppl|cop)(y|ies|ied|ying)\b|\b(call|invoke|run)\s+(the\s+)?[`'"]?[\w-]+[`'"]?(\s+tool)?\s+with\b|\b(contents?|text|value|values|output) (of|in|from)\b|\b(appear(s|ing)?|found|stored|kept|contained|listed|present|saved) in\b/gi;
/** Verbs and phrases about files: with data words they describe what the tool itself does ("reads the API key"). */
const ABOUT_FILES =
  /^(read|open|cat|contents?|text|values?|output|appear|found|stored|kept|contained|listed|present|saved)(s|ing|ed)?\b/i;
/** A passive construction after the data: "the dialogue must be supplied", "keys should be included". */
const PASSIVE_MOVE =
  /\b(be|is|are|been|being|get|gets)\s+(\w+\s+)?(included|attached|appended|prepended|embedded|inserted|put|placed|passed|provided|supplied|filled|populated|pasted|copied|sent|uploaded|forwarded|posted|transmitted|shared|mirrored|added|given|reported|set|stored|saved|kept|logged|archived|carried|recorded)\b/gi;
const NEGATION =
  /\b(do not|don'?t|never|avoid|must not|mustn'?t|should not|shouldn'?t|not|no|without|nor)\b[^.]{0,30}$/i;
/** The longest text NEGATION can match ("should not" and 30 more characters), and one character for its \b. */
const NEGATION_REACH = 42;

/**
 * Whether the text just before `index` negates what follows. Only the last NEGATION_REACH characters can
 * matter: testing the whole prefix at each of a sentence's matches would cost its length squared.
 */
function negatedAt(text: string, index: number): boolean {
  return NEGATION.test(text.slice(Math.max(0, index - NEGATION_REACH), index));
}
/** Files that hold credentials or agent configuration. */
const SENSITIVE_PATH = anyOf(
  'i',
  [
    String.raw`\.ssh\b`,
    String.raw`\bid_(rsa|dsa|ecdsa|ed25519)\b|authorized_keys`,
    String.raw`\.aws\/(credentials|config)|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker\/config\.json|\.kube\/config`,
    String.raw`\/etc\/(passwd|shadow|sudoers)`,
    String.raw`(^|[\s${'`'}'"(/])\.env\b`,
    // Agent configuration: MCP server lists and their credentials.
    String.raw`\bmcp\.json\b|claude_desktop_config|\.cursor\/`,
    String.raw`\.gnupg|\.bash_history|\.zsh_history|wallet\.dat|cookies\.sqlite`,
    String.raw`\b(secrets?|credentials?|service[-_]?account[\w-]*)\.(ya?ml|json|toml|ini|env|txt|csv)\b`,
    String.raw`\b[\w-]+\.(pem|p12|pfx|keystore|jks|ppk)\b`,
  ],
  String.raw`(~\/|\$HOME\/|\/home\/\w+\/|\/root\/|%USERPROFILE%[\\/]?)?`,
);
/** Data the tool has no business with: credentials, the conversation, other tools' traffic, personal data. */
const SENSITIVE_DATA = anyOf('i', [
  // Credentials.
  String.raw`\b(passwords?|passphrases?|credentials?|secrets|mnemonic|seed phrase|recovery phrase|one-time (codes?|passwords?))\b`,
  String.raw`\b((api|access|secret|private|ssh|gpg|pgp|signing|encryption) keys?|(private )?key material)\b`,
  String.raw`\b((api|auth|bearer|access|session|refresh|oauth|github|npm)[ _-]?tokens?|tokens? (you|it) (were|was|have|has) (given|provided))\b`,
  String.raw`\b(session cookies|cookies|authorization header|environment variables?|env vars?)\b`,
  // The conversation and the model's context.
  String.raw`\b(whole|entire|full|complete|preceding|previous|prior|current|earlier|ongoing) (conversation|chat|dialog(ue)?|exchange)\b`,
  String.raw`\b(conversation|chat|dialog(ue)?)( history| log| transcript| context| so far| contents)\b`,
  String.raw`\b(previous|prior|earlier|all|last|other|preceding|recent)( \w+){0,2} (user |chat )?messages?\b`,
  String.raw`\bsystem (prompt|message)\b`,
  String.raw`\b(responses?|results?|outputs?|data|content|messages?) (you|the assistant|the model) (have |has )?(seen|received|read|observed|access to)\b`,
  // Other tools' traffic.
  String.raw`\b(results?|outputs?|arguments?|responses?|parameters?) (of|from) (every|all|any|other|another|previous|earlier|each) (other )?tools?\b`,
  String.raw`\bother tools'? (results?|outputs?|arguments?|data|responses?)\b|\bits arguments\b`,
  // Personal data.
  String.raw`\bthe user'?s (recent |previous |earlier )?(e-?mail( address)?|phone( number)?|(home )?address|location|contacts|messages|prompts|queries|requests|questions|files|documents|identity|full name)\b`,
]);

/** A named argument slot: "as 'sidenote'", "in the `notes` field", "the signature parameter". */
const ARGUMENT_SLOT =
  /\b(as|in|into|to|via)\s+(the\s+)?[`'"]\w+[`'"]|\b(argument|parameter|param|field|property|properties|object)\b/i;
const OWNED =
  /\b(the|your|their|its|his|her|all|any|every|each|these|those|user'?s?|saved|stored|cached|available|current|existing|real|full|entire|whole|complete|own|my|our)\b[^,;:]{0,25}$/i;

/** A conditional clause about another tool being used: "when send_email is called", "each time a payment tool runs". */
const OTHER_TOOL_IN_USE: RegExp[] = [
  /\b(when|whenever|every time|each time|any time|if|after|before|once)\s+(the |a |an |any |another )?(?!this\b|the tool\b|it\b|tool\b)([\w-]+(\s+tool)?|[\w-]+\s+or\s+[\w-]+\s+tool|\w+ tool)\s+(is|are|gets|get|has been)\s+(used|called|invoked|run|executed|triggered)\b/i,
  /\b(any|every|each|all|other|another|subsequent|later|future)\b.{0,30}(?<!\bthis )\btool( calls?|s)?\b.{0,30}\b(you (call|use|invoke|run)|used|called|invoked|calls?)\b/i,
  /\b(before|after|when|whenever|instead of)\s+(running|using|calling|invoking|executing|you (run|use|call|invoke))\s+[`'"]?[a-z0-9]+([_-][a-z0-9]+)+[`'"]?/i,
  /\b(from now on|for the rest of (the|this) (session|conversation)|in all future (replies|responses|calls|conversations|sessions|chats))\b/i,
  /\b(before|after|when|whenever|each time|every time|any time)\s+(running|using|calling|invoking|executing|you (run|use|call|invoke))\b(?!\s+(this|it)\b).{0,40}(?<!\bthis )\b(tool|function)\b/i,
  /\b(every time|each time|whenever|any time)\b.{0,30}\b(any|a|an|another|other)\b.{0,30}(?<!\bthis )\btools?\b.{0,10}\b(runs?|is run|executes|fires|is (used|called|invoked))\b/i,
];
/** What a shadowing instruction makes the model do differently with another tool. */
const SHADOW_ACTION =
  /\b(change|replace|redirect|route|rewrite|modify|alter|swap|add|prepend|append|insert|include|attach|bcc|cc|send|forward|copy|set|disable|skip|remove|delete)\b/gi;

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>)\]}]+[^\s"'<>)\]}.,;:!?]/gi;
/** The local part is at most 64 characters (RFC 5321): unbounded, a long dotted run would be rescanned from each word. */
const EMAIL = /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
/**
 * Sending, as an instruction ("send", "POST … to") or as what happens to the data ("is uploaded to", "should go
 * to"). Third-person forms ("sends", "uploads") are left out: they describe what the tool itself does with its
 * own service.
 */
const TRANSMIT =
  /\b(send|sent|post|posted|upload|uploaded|forward|forwarded|report|reported|submit|submitted|transmit|transmitted|copy|copied|mirror|mirrored|sync|synced|log|logged|beacon|e-?mail|e-?mailed|mailed|bcc|cc|deliver|delivered|push|pushed|relay|relayed|share|shared|export|exported|stream|streamed|go|goes|routed|dispatched|archived)\b/i;
const TRANSMIT_GLOBAL = new RegExp(TRANSMIT.source, 'gi');
/** How far before an endpoint a sending verb makes it a destination. */
const VERB_REACH = 100;
/** A query-string slot the model fills in: ?d={summary of the chat}, ?k=$TOKEN, ?x=<secret>. */
const QUERY_SLOT = /^\S*?[?&#][^=\s?&#]*=\s*(\{\{?[^{}\n]{1,80}\}?|\$\{?\w+\}?|<[^<>\n]{1,80}>|\[[^[\]\n]{1,80}\])/;
/** A host-name slot: "<hex of the question>.q.dnslog.example" (DNS exfiltration). */
const HOST_SLOT = /(\{\{?[^{}\n]{1,60}\}\}?|<[^<>\n]{1,60}>|\$\{?\w+\}?)\.([a-z0-9-]+\.)+[a-z]{2,}\b/i;
/** What a slot holds when it leaks context rather than the tool's own arguments (?q={query} is ordinary). */
const CONTEXT_SLOT =
  /\b(conversation|chat|transcript|history|summary|summari[sz]\w*|messages?|prompts?|secrets?|keys?|tokens?|passwords?|credentials?|cookies?|env|environment|questions?|answers?|context|memory|hex|base64|encoded)\b/i;
const CAPTURE_HOSTS =
  /(^|\.)(webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(-free)?\.(io|app|dev)|burpcollaborator\.net|oast\.(fun|live|me|online|pro|site)|interact\.sh|canarytokens\.com|beeceptor\.com|hookbin\.com|requestcatcher\.com|pastebin\.com|paste\.rs|hastebin\.com|ghostbin\.\w+|transfer\.sh|file\.io|0x0\.st|termbin\.com)$/i;
const SHORTENERS = /^(bit\.ly|tinyurl\.com|t\.co|goo\.gl|is\.gd|ow\.ly|rb\.gy|cutt\.ly|shorturl\.at)$/i;
/** Names reserved for documentation (RFC 2606, RFC 6761): nothing sent there arrives anywhere. */
const DOCUMENTATION_HOST = /(^|\.)(example\.(com|net|org|edu)|example|test|invalid|localhost)$/i;
const IP_HOST = /^\d{1,3}(\.\d{1,3}){3}$|^\[[0-9a-f:]+\]$/i;

const EXECUTABLE_PAYLOAD = anyOf('i', [
  // Process spawning and dynamic evaluation in code.
  String.raw`\b(child_process|exec(Sync|File)?\s*\(|spawn(Sync)?\s*\(|os\.(system|popen)\s*\(|subprocess\.\w+\s*\(|Runtime\.getRuntime|__import__\s*\(|eval\s*\(|new Function\s*\()`,
  // Download-and-run, reverse shells, encoded PowerShell.
  String.raw`\b(curl|wget|iwr|irm)\b[^|\n]{0,200}\|\s*(sudo\s+)?(ba|z|da)?sh\b|\bbase64\s+(-d|--decode)\b[^\n]{0,40}\|\s*(ba|z)?sh\b`,
  String.raw`\/dev\/tcp\/|\bnc\s+(-\w+\s+)*-e\b|\bbash\s+-i\b|\bpowershell(\.exe)?\s+(-\w+\s+)*-(e|enc|encodedcommand)\b`,
  // Destruction, world-writable permissions, persistence.
  String.raw`\brm\s+-rf\s+[~/]|\bchmod\s+(-\w+\s+)*0?[0-7]?[2367][2367]\b|\bchmod\s+(-\w+\s+)*[ugoa]*\+[rwxs]+\s+[~/]`,
  String.raw`>>?\s*~?\/?[\w/.-]*\.(bashrc|zshrc|profile|bash_profile)\b|\bcrontab\s+-`,
]);

const DECODE_AND_FOLLOW =
  /\b(decode|base64|unhex|deobfuscate|reverse)\b.{0,60}\b(follow|do|execute|run|obey|apply|carry out|act on)\b/i;

function checkText(
  where: string,
  raw: string,
  selfName: RegExp | undefined,
  others: string[],
  findings: Findings,
): void {
  if (!raw) return;
  const hidden = hiddenCharacters(raw);
  if (hidden) {
    findings.add(
      'poisoning',
      60,
      `${where} contains invisible or bidirectional Unicode characters (${hidden})`,
      `strip zero-width, bidi-control, tag and variation-selector characters from ${where} and read what they hid`,
    );
  }
  // Match against what a model reads: invisible characters removed, compatibility forms folded.
  // The tool's own name reads as "this tool", so that "route every search through safe_search" is self-reference.
  let text = PLAIN_TEXT.test(raw) ? raw : raw.normalize('NFKC').replace(INVISIBLE_GLOBAL, '');
  if (selfName) text = text.replace(selfName, '$1this tool');

  for (const sentence of sentences(text)) {
    if (affirmative(CONCEALMENT, sentence)) {
      findings.add(
        'poisoning',
        60,
        `${where} tells the model to keep something from the user: "${excerpt(sentence)}"`,
        `remove instructions aimed at the model from ${where}; block the tool if they were not expected`,
      );
    }
    if (affirmative(OVERRIDE, sentence)) {
      findings.add(
        'poisoning',
        60,
        `${where} claims authority over other instructions: "${excerpt(sentence)}"`,
        `remove instructions aimed at the model from ${where}; block the tool if they were not expected`,
      );
    }
    const grab = dataGrab(sentence.replace(URL_PATTERN, 'a link'));
    if (grab) {
      findings.add(
        'exfiltration',
        grab.path ? 45 : 40,
        `${where} asks the model for ${grab.what} (${grab.verb} …): "${excerpt(sentence)}"`,
        `remove requests for unrelated data from ${where}; block the tool if they were not expected`,
      );
    } else {
      const path = SENSITIVE_PATH.exec(sentence)?.[0];
      if (path) {
        findings.add(
          'mentions',
          5,
          `${where} mentions a credential or agent-configuration file (${path.trim()})`,
          `check why ${where} refers to ${path.trim()}`,
        );
      }
    }
    const changesOtherTools =
      OTHER_TOOL_IN_USE.some((p) => p.test(sentence)) &&
      allMatches(SHADOW_ACTION, sentence).some(
        (m) => !NEGATION.test(sentence.slice(Math.max(0, m.index - 25), m.index)),
      );
    if (changesOtherTools) {
      findings.add(
        'poisoning',
        50,
        `${where} gives instructions about other tools or later calls: "${excerpt(sentence)}"`,
        `a tool's description should describe that tool only; remove the instructions or block the tool`,
      );
    }
    checkEndpoints(where, sentence, findings);
    checkImpersonatingText(where, sentence, others, findings);
  }

  if (FAKE_CHANNEL.some((p) => p.test(text))) {
    findings.add(
      'poisoning',
      60,
      `${where} addresses the model through pseudo-system markup or a note to the assistant`,
      `remove <IMPORTANT>/<system>-style tags and notes to the model from ${where}`,
    );
  }
  const comment = HTML_COMMENT.exec(text)?.[0];
  if (comment && /\w{3,}/.test(comment.replace(/<!--|-->/g, ''))) {
    findings.add(
      'poisoning',
      40,
      `${where} contains an HTML comment, which renderers hide from people but the model reads`,
      `remove the comment from ${where} and check what it says`,
    );
  }
  const blob = encodedBlob(text);
  if (blob) {
    const follow = DECODE_AND_FOLLOW.test(text);
    findings.add(
      follow ? 'poisoning' : 'exfiltration',
      follow ? 60 : 35,
      `${where} contains ${follow ? 'an encoded payload the model is told to decode and follow' : 'a long encoded blob'} (${excerpt(blob, 24)})`,
      `decode and inspect the blob in ${where}; descriptions should be plain text`,
    );
  }
  const payload = EXECUTABLE_PAYLOAD.exec(text)?.[0];
  if (payload) {
    findings.add(
      'hidden_capability',
      40,
      `${where} contains an executable payload (${excerpt(payload, 40)})`,
      `find out where ${where} is executed; block the tool unless this is expected`,
    );
  }
}

/** Words that, just before an instruction, turn it into its opposite: "never pretend", "do not skip confirmation". */
const NEGATED_BEFORE =
  /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|not|no|avoid|nor)\s+(\w+\s+){0,2}$/i;

/** Global copies of the instruction patterns, compiled once rather than for every sentence. */
const GLOBAL_COPIES = new Map<RegExp, RegExp>(
  [...CONCEALMENT, ...OVERRIDE].map((pattern) => [pattern, new RegExp(pattern.source, 'gi')]),
);

/** Whether one of the patterns matches where it is not itself negated. */
function affirmative(patterns: RegExp[], sentence: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern.test(sentence) &&
      allMatches(GLOBAL_COPIES.get(pattern)!, sentence).some(
        (m) => !NEGATED_BEFORE.test(sentence.slice(Math.max(0, m.index - 30), m.index)),
      ),
  );
}

function dataGrab(sentence: string): { verb: string; what: string; path: boolean } | undefined {
  for (const match of allMatches(MOVE, sentence)) {
    if (negatedAt(sentence, match.index)) continue;
    const after = sentence.slice(match.index + match[0].length, match.index + match[0].length + 90);
    const path = SENSITIVE_PATH.exec(after)?.[0];
    if (path) return { verb: match[0].toLowerCase(), what: path.trim(), path: true };
    // "read", "open" and "contents of" are about files: with data words they describe what the tool itself does.
    if (ABOUT_FILES.test(match[0])) continue;
    // Someone's data, not a field name: "the user's saved passwords", "your API keys", "the conversation so far"
    // are asked for; "fill username, password" only describes a form.
    const data = SENSITIVE_DATA.exec(after);
    if (data && owned(after, data)) return { verb: match[0].toLowerCase(), what: data[0], path: false };
  }
  for (const match of allMatches(PASSIVE_MOVE, sentence)) {
    const before = sentence.slice(Math.max(0, match.index - 90), match.index);
    if (NEGATION.test(before.slice(-25))) continue;
    const path = SENSITIVE_PATH.exec(before)?.[0];
    if (path) return { verb: match[0].toLowerCase(), what: path.trim(), path: true };
    const data = SENSITIVE_DATA.exec(before);
    if (data && owned(before, data)) return { verb: match[0].toLowerCase(), what: data[0], path: false };
  }
  // Pronouns break the verb-object pair ("needs the key material from the SSH folder; attach it as `blob`"):
  // sensitive data, an argument to put it in and a moving verb in one sentence are enough.
  if (ARGUMENT_SLOT.test(sentence)) {
    const moves = allMatches(MOVE, sentence).some((m) => !ABOUT_FILES.test(m[0]) && !negatedAt(sentence, m.index));
    const data = SENSITIVE_DATA.exec(sentence);
    if (moves && data && owned(sentence, data)) return { verb: 'put into an argument', what: data[0], path: false };
  }
  return undefined;
}

function leaksContext(slot: string): boolean {
  return CONTEXT_SLOT.test(slot.replace(/[_-]+/g, ' '));
}

/** Whether a data phrase names someone's actual data ("the user's prompts", "your keys"), not a field or a topic. */
function owned(text: string, data: RegExpExecArray): boolean {
  return OWNED.test(`${text.slice(Math.max(0, data.index - 30), data.index)}${data[0].split(/\s+/)[0]}`);
}

function checkEndpoints(where: string, sentence: string, findings: Findings): void {
  const hostSlot = HOST_SLOT.exec(sentence);
  if (hostSlot && leaksContext(hostSlot[1])) {
    findings.add(
      'exfiltration',
      40,
      `${where} has the model put data into a host name (${excerpt(hostSlot[0], 60)}), which leaks it through DNS`,
      `remove the host-name template from ${where}`,
    );
  }
  // Each endpoint with where it first appears. Every look around an endpoint below reads a bounded window,
  // so that a sentence full of endpoints costs its length, not its length squared.
  const firstAt = new Map<string, number>();
  for (const match of [
    ...allMatches(URL_PATTERN, sentence),
    ...(sentence.includes('@') ? allMatches(EMAIL, sentence) : []),
  ])
    if (!firstAt.has(match[0]) || firstAt.get(match[0])! > match.index) firstAt.set(match[0], match.index);
  for (const [endpoint, at] of firstAt) {
    const isEmail = !endpoint.includes('://');
    const host = isEmail ? endpoint.split('@')[1] : hostOf(endpoint);
    // The endpoint is where data goes: "send … to X", "uploaded to X", "add X to BCC", with the verb close by.
    const windowStart = Math.max(0, at - VERB_REACH - 10);
    const verb = allMatches(TRANSMIT_GLOBAL, sentence.slice(windowStart, at))
      .map((m) => windowStart + m.index)
      .filter((index) => at - index <= VERB_REACH)
      .pop();
    const destination =
      verb !== undefined &&
      !negatedAt(sentence, verb) &&
      (/\b(to|into)\s+(\S+\s+){0,3}?[`'"(<]?$/i.test(sentence.slice(Math.max(0, at - 200), at)) ||
        /^[`'">)]?\s+(to|in|as|on)\s+(the\s+)?(bcc|cc|recipients?|blind (carbon )?copy|carbon copy)\b/i.test(
          sentence.slice(at + endpoint.length, at + endpoint.length + 60),
        ));
    const querySlot = isEmail ? null : QUERY_SLOT.exec(sentence.slice(at, at + endpoint.length + 200));
    if (querySlot && leaksContext(querySlot[1])) {
      findings.add(
        'exfiltration',
        40,
        `${where} has the model build a URL filled in with ${excerpt(querySlot[1], 40)} (${endpoint}), which leaks it when fetched or rendered`,
        `remove ${endpoint} from ${where}`,
      );
    } else if (host && DOCUMENTATION_HOST.test(host)) {
      continue;
    } else if (destination) {
      findings.add(
        'exfiltration',
        40,
        `${where} tells the model to send data to ${endpoint}`,
        `remove ${endpoint} from ${where}; block the tool if the destination is not the tool's own service`,
      );
    } else if (host && (CAPTURE_HOSTS.test(host) || IP_HOST.test(host) || SHORTENERS.test(host))) {
      findings.add(
        'exfiltration',
        25,
        `${where} names ${CAPTURE_HOSTS.test(host) ? 'a request-capture or anonymous upload service' : IP_HOST.test(host) ? 'a bare IP address' : 'a link shortener that hides the destination'} (${endpoint})`,
        `check what ${endpoint} is and remove it from ${where}`,
      );
    } else {
      findings.add(
        'mentions',
        isEmail ? 5 : 1,
        `${where} names ${isEmail ? 'an e-mail address' : 'a URL'} (${endpoint})`,
        `check that ${endpoint} is expected (documentation, the tool's own service)`,
      );
    }
  }
}

const PROMOTES_ITSELF =
  /\b(replaces|replacement (for|of)|supersedes|successor (to|of)|(new|newer|updated|improved|fixed|official|verified|real|genuine|maintained|v\d+) (version|edition|release|replacement|build) (of|for)|(is|as) the (official|real|genuine|verified|original)( version of)?)\s+(the\s+)?[`'"]?$/i;
const DISPARAGES =
  /\b(deprecated|obsolete|broken|unreliable|unsafe|insecure|outdated|legacy|buggy|compromised|malicious|corrupts?|retired|discontinued|sunset|superseded|removed|end[- ]of[- ]life|no longer (works|supported|maintained|available)|(should|must) not be used|do(es)?n'?t work|does not work|is disabled)\b/i;
/** Other tools run down as a group: "other search tools are compromised", "the remaining tools leak data". */
const DISPARAGES_OTHERS =
  /\b(other|all other|the other|any other|remaining|third[- ]party|competing)\b.{0,25}\btools?\b.{0,25}\b(are|is|were|have been|has been)\b.{0,15}\b(compromised|malicious|unsafe|insecure|broken|deprecated|unreliable|leak(y|ing)?|untrusted|backdoored|disabled|retired)\b/i;
const SELF_PREFERENCE =
  /\b(always|only|exclusively)\s+(use|choose|call|pick|prefer|select)\s+(this|me)\b(\s+tool)?.{0,30}\b(for|over|instead of|rather than|above)\s+(any|all|every|other|each)\b|\b(route|send|direct|run)\s+(every|all|each|any)\b.{0,30}\b(through|to|via)\s+(this tool|me)\b(\s+only|\s+exclusively)?/i;

function checkImpersonatingText(where: string, sentence: string, others: string[], findings: Findings): void {
  const lower = sentence.toLowerCase();
  for (const other of others) {
    if (!lower.includes(other.toLowerCase())) continue;
    const at = mentionIndex(sentence, other);
    if (at < 0) continue;
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

// ---------------------------------------------------------------------------------------------------
// Names

function checkName(subject: ReviewSubject, others: string[], findings: Findings): void {
  const name = subject.name ?? '';
  if (hiddenCharacters(name) || /[^\x20-\x7e]/.test(name)) {
    findings.add(
      'impersonation',
      45,
      `name contains invisible or non-ASCII characters that can imitate another name (${JSON.stringify(name)})`,
      'rename the tool with plain ASCII letters, digits and hyphens',
    );
  }
  const mine = canonicalName(name);
  for (const other of others) {
    const theirs = canonicalName(other);
    if (!mine || !theirs) continue;
    let penalty = 0;
    let how = '';
    if (mine === theirs) {
      // Another naming convention (takeScreenshot, take_screenshot) is also what independent servers do.
      const conventionOnly = plainName(name) === plainName(other);
      penalty = conventionOnly ? 25 : 45;
      how = conventionOnly ? 'differs only in case or separators from' : 'is spelled like';
    } else if (Math.min(mine.length, theirs.length) >= 6 && isTransposition(mine, theirs)) {
      penalty = 45;
      how = 'swaps two letters of';
    } else if (Math.min(mine.length, theirs.length) >= 6 && distance(mine, theirs) === 1) {
      const number = numberVariant(name, other);
      if (number) {
        // Singular and plural siblings are common ("get_user", "get_users"); what gives an imitation
        // away is a description written for the other tool's name.
        const described = descriptionWords(subject.description);
        const copiesOther = described.has(number.theirs) && !described.has(number.mine);
        penalty = copiesOther ? 40 : 5;
        how = copiesOther ? 'differs only in number from, and is described like,' : 'differs only in number from';
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
    if (penalty > 0) {
      findings.add(
        'impersonation',
        penalty,
        `name ${how} the catalog tool "${other}"`,
        `check that this is not a look-alike of "${other}"; rename it or block it`,
      );
    }
  }
}

/** Words that claim authority or newness when added to another tool's name: "read_file_official", "safe_fetch". */
const AUTHORITY_WORDS = new Set([
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
function authorityQualifier(mine: string[], theirs: string[]): string | undefined {
  if (theirs.length === 0 || mine.length <= theirs.length) return undefined;
  for (let start = 0; start + theirs.length <= mine.length; start++) {
    if (!theirs.every((w, i) => mine[start + i] === w)) continue;
    const extra = [...mine.slice(0, start), ...mine.slice(start + theirs.length)];
    if (extra.every((w) => AUTHORITY_WORDS.has(w))) return extra.join(' ');
  }
  return undefined;
}

function plainName(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

/** Look-alike folding: case, separators, homoglyphs, digit-for-letter swaps and doubled letters do not count. */
function canonicalName(name: string): string {
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
const CONFUSABLES: Record<string, string> = {
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

function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
  return diff.length === 2 && diff[1] === diff[0] + 1 && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]];
}

/** When two names differ only by one word's plural ending: that word in each. */
function numberVariant(mine: string, theirs: string): { mine: string; theirs: string } | undefined {
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

function descriptionWords(text: string): Set<string> {
  return new Set((text ?? '').toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

// ---------------------------------------------------------------------------------------------------
// Hidden and encoded text

/**
 * Control characters (terminal escape sequences among them), zero-width characters, bidi controls, tag characters,
 * invisible operators, fillers and variation selectors.
 */
const INVISIBLE_SOURCE =
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u115F\\u1160\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\u206A-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB]' +
  '|\\u034F|\\u17B4|\\u17B5|\\p{Variation_Selector}|[\\u{E0000}-\\u{E007F}]|[\\u{1D173}-\\u{1D17A}]';
const INVISIBLE_GLOBAL = new RegExp(INVISIBLE_SOURCE, 'gu');
/** Printable ASCII, tabs and line breaks: nothing hidden, nothing for NFKC to fold (most texts; a fast path). */
const PLAIN_TEXT = /^[\t\n\r\x20-\x7e]*$/;

/** Describes the hidden characters in a text, or '' if there are none worth flagging. */
function hiddenCharacters(text: string): string {
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
function encodedBlob(text: string): string | undefined {
  // A scheme is short: an unbounded one would rescan a long dotted run ("a.a.a…") from each of its words.
  const withoutUrls = text
    .replace(/\b[a-z][a-z0-9+.-]{0,31}:\/\/\S+/gi, ' ')
    .replace(/data:[\w/+.-]+;base64,\S+/gi, ' ');
  for (const match of withoutUrls.matchAll(/[A-Za-z0-9+/_-]{40,}={0,2}/g)) {
    const run = match[0];
    const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((c) => c.test(run)).length;
    if (classes >= 2 && entropy(run) >= 4.2 && !/^[a-z0-9]+([_/-][a-z0-9]+)+$/i.test(run)) return run;
    if (/^[0-9a-f]{48,}$/i.test(run) && run.length !== 64) return run;
  }
  return /(\\x[0-9a-fA-F]{2}){8,}|(\\u[0-9a-fA-F]{4}){8,}|(%[0-9a-fA-F]{2}){12,}/.exec(withoutUrls)?.[0];
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Sentences and list items: instructions are judged within the sentence that carries them. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)|(?<=:)\s*\n/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

/**
 * Every match of a global pattern. `String.prototype.matchAll` copies the RegExp on each call, which for
 * the many patterns tried on every sentence cost more than the matching itself.
 */
function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    found.push(match);
    if (match[0] === '') pattern.lastIndex++;
  }
  pattern.lastIndex = 0;
  return found;
}

function excerpt(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Words of an identifier or phrase: camelCase, snake_case, kebab-case and digits split apart, lower case. */
function words(name: string): string[] {
  return (name ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+|(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])/)
    .filter(Boolean);
}

function mentionIndex(text: string, name: string): number {
  const match = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}(?![\\w-])`, 'i').exec(text);
  return match ? match.index + match[1].length : -1;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url.replace(/[{}<>[\]$]/g, 'x')).hostname;
  } catch {
    return undefined;
  }
}

/** One regular expression matching any of the alternatives, each written as its own pattern source. */
function anyOf(flags: string, alternatives: string[], prefix = ''): RegExp {
  return new RegExp(`${prefix}(?:${alternatives.map((source) => `(?:${source})`).join('|')})`, flags);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isString(node: Record<string, unknown>): boolean {
  return node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'));
}

/**
 * Whether a string parameter is constrained. A length limit bounds free text but does not make a path,
 * URL or command safe; only an enum, const or pattern does that (`strict`).
 */
function isRestricted(node: Record<string, unknown>, strict = false): boolean {
  const keywords = strict ? ['pattern', 'enum', 'const'] : ['maxLength', 'pattern', 'enum', 'const', 'format'];
  return keywords.some((k) => node[k] !== undefined);
}

interface ParameterInfo {
  name: string;
  path: string;
  description: string;
  schema: Record<string, unknown>;
}

/** Every named parameter, nested objects, arrays and combinators included. */
function allParameters(schema: unknown, path: string): ParameterInfo[] {
  const found: ParameterInfo[] = [];
  walk(schema, path, (node, nodePath, name) => {
    if (name !== undefined)
      found.push({
        name,
        path: nodePath,
        description: [node.description, node.title].filter((t) => typeof t === 'string').join('. '),
        schema: node,
      });
  });
  return found;
}

/** Every string a model may read in a schema: descriptions, titles, defaults, examples, enum and const values. */
function schemaTexts(schema: unknown, path: string): { where: string; text: string }[] {
  const texts: { where: string; text: string }[] = [];
  walk(schema, path, (node, nodePath) => {
    for (const key of ['description', 'title']) {
      if (typeof node[key] === 'string') texts.push({ where: `${key} of ${nodePath}`, text: node[key] as string });
    }
    for (const key of ['default', 'examples', 'enum', 'const']) {
      const value = node[key];
      const strings = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
      for (const text of strings) texts.push({ where: `${key} of ${nodePath}`, text });
    }
  });
  return texts;
}

type Visitor = (node: Record<string, unknown>, path: string, name?: string) => void;

function walk(schema: unknown, path: string, visit: Visitor, name?: string, depth = 0): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || depth > 32) return;
  const node = schema as Record<string, unknown>;
  visit(node, path, name);
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [key, child] of Object.entries(properties as Record<string, unknown>))
      walk(child, `${path}.${key}`, visit, key, depth + 1);
  }
  for (const key of ['items', 'additionalProperties', 'not'])
    walk(node[key], `${path}[]`, visit, key === 'items' ? name : undefined, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const options = node[key];
    if (Array.isArray(options)) options.forEach((option) => walk(option, path, visit, name, depth + 1));
  }
  for (const key of ['$defs', 'definitions']) {
    const defs = node[key];
    if (defs && typeof defs === 'object') {
      for (const [defName, child] of Object.entries(defs as Record<string, unknown>))
        walk(child, `${path}.${key}.${defName}`, visit, undefined, depth + 1);
    }
  }
}
