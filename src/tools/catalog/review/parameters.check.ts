import type { ReviewSubject } from '../auto-review';
import { Findings } from './findings';
import { describedAsDataProcessing } from './permissions.check';
import { ParameterInfo, isRestricted, isString } from './schema';
import { anyOf, words } from './text';

export const FREE_TEXT_WORDS = new Set([
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
export const CODE_WORDS = new Set([
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
export const PATH_WORDS = new Set(['path', 'paths', 'file', 'filename', 'filepath', 'dir', 'directory', 'folder']);
export const URL_WORDS = new Set([
  'url',
  'urls',
  'uri',
  'endpoint',
  'webhook',
  'callback',
  'href',
  'link',
  'hook',
  'host',
]);
/** A parameter description saying that its value is run as code. */
export const RUNS_AS_CODE = anyOf('i', [
  String.raw`\b(evaluated|executed|interpreted|eval'?d|run|runs)\b.{0,40}\b(as|by|with|in)\b.{0,20}\b(code|javascript|js|python|bash|shell|sh|ruby|lua|perl|powershell|interpreter|expression|script)\b`,
  String.raw`\b(javascript|js|python|bash|shell|sh|ruby|lua|perl|powershell|node(js)?)\s+(code|script|snippet|expression|command|one-liner|function|lambda)s?\b`,
  String.raw`\b(snippets?|scripts?|expressions?|lambdas?|function body|code)\b.{0,40}\b(is |are |gets |get |will be |is then )?(evaluated|executed|run|interpreted|eval'?d)\b`,
  String.raw`\b(eval|exec)\b\s*(\(|with|on)|\b(arbitrary|any) (code|script|command|snippet)s?\b|\bshell command\b|\bcommand line\b`,
]);
export const OTHER_DANGEROUS_DESCRIPTIONS =
  /\b(file ?path|path to (a|the) (file|directory|folder)|absolute path|url to (fetch|call|request)|webhook|sql (query|statement))\b/i;
/** What a tool says about itself when it does run code or commands. */
export const ADMITS_EXECUTION =
  /\b(execut\w*|run(s|ning)?|eval\w*|interpret\w*|script\w*|code|commands?|shell|terminal|sql|quer(y|ies)|sandbox\w*|notebook|repl|kubectl|helm|jq|template\w*)\b/i;

/** Words of a secret-bearing parameter name, as lists of consecutive name words. */
export const SECRET_WORD_SEQUENCES = [
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
export const PAGINATION = /\b(pag(e|es|ing|inat\w*)|cursor|continuation|next|offset|resume)\b/i;
/** Parameter names that ask for credential stores or the model's context (schema poisoning through names). */
export const SENSITIVE_SOURCE_NAMES = [
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
/** A parameter said to take IDs, fingerprints or public keys: what a tool installs on a machine, not its secrets. */
const NAMES_PUBLIC_HANDLES = /\b(ids?|fingerprints?|public keys?)\b/i;
/** Words before or after a secret word that make the parameter about the secret, not the secret itself. */
export const NOT_THE_SECRET_BEFORE = new Set([
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
export const NOT_THE_SECRET_AFTER = new Set([
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
  'selector',
  'plugin',
  'expiration',
]);
/**
 * A parameter description that says the value is a secret ("Account password", "GitHub token"): the secret is
 * the head of the opening noun phrase, not the object of a preposition ("Description of the token") nor a
 * qualifier of another noun ("API key name", "Password expiration date").
 */
export const DESCRIBED_AS_SECRET =
  /^(?:(?!(?:of|by|for|to|from|with|about)\s)\S+\s+){0,3}?(password|passphrase|pin|secret( access)? key|client secret|api key|access key|access token|personal access token|auth(entication)? token|bearer token|token|one-time (code|password)|recovery phrase|seed phrase|private key)\b(?!\s+(?:names?|ids?|types?|labels?|expiration|expiry|expires|dates?|descriptions?|plugins?|selectors?|polic(?:y|ies)|scopes?|permissions?)\b)/i;
/**
 * A value said to identify something (an idempotency key, an opaque resource handle) is a name, not a secret;
 * so is a key or token said to be public (a publishable map token, a public key).
 */
const DESCRIBED_AS_IDENTIFIER = /\b(identifier|uuid(v\d)?|idempoten\w*|public (access )?(token|key))\b/i;

/** A secret said to be the user's own: a login credential handed to the tool, whatever the tool manages. */
const USERS_OWN_SECRET = /\b(your|user'?s|account|log-?in|sign(ing)?[- ]in|authenticator)\b/i;
/** The thing a secret belongs to, in its description: "Webhook secret", "Password for the user". */
const SECRET_OWNER_BEFORE = /^(?:the\s+|a\s+|an\s+)?((?:[\w-]+\s+){1,2})(?:password|passphrase|secret|token|key)\b/i;
const SECRET_OWNER_AFTER = /\b(?:password|passphrase|secret|token|key)\s+(?:for|of)\s+(?:the\s+|a\s+|an\s+)?([\w-]+)/i;

/** A tool whose job is making or managing API requests: an HTTP client, Postman collections and environments. */
const API_CLIENT =
  /\b(?:(?:http|https|rest|api|graphql|soap)\s(?:requests?|calls?|clients?|collections?)|(?:get|post|put|patch|delete|head)\s(?:http\s)?requests?|postman|collections?|mock servers?|request headers?)\b/i;

export function checkParameters(subject: ReviewSubject, parameters: ParameterInfo[], findings: Findings): void {
  const declaresSecrets = subject.permissions.includes('secret_access');
  const reachesOut = subject.permissions.includes('network_external') || subject.permissions.includes('network_access');
  const admitsExecution = ADMITS_EXECUTION.test(`${words(subject.name).join(' ')} ${subject.description}`);
  const dataProcessing = describedAsDataProcessing(subject, parameters);
  const apiClient = API_CLIENT.test(`${words(subject.name).join(' ')} ${subject.description ?? ''}`);
  const toolWords = words(subject.name);
  const descriptions = new Map(parameters.map((p) => [p.path, p.description]));

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
    // An array's items are described by the array: "SSH key IDs or fingerprints to add to the server".
    const described = p.description || descriptions.get(p.path.replace(/\[\]$/, '')) || '';
    if (source && !NAMES_PUBLIC_HANDLES.test(described)) {
      findings.add(
        'exfiltration',
        40,
        `parameter name ${p.path} asks for ${source.join(' ')} data, which the tool has no business with`,
        `remove ${p.path}; block the tool if it was not expected`,
      );
    }

    if (takesSecret(p, nameWords)) {
      if (apiClient) {
        // An API client (Postman, an HTTP request tool) sends the caller's auth, keys and cookies with the
        // requests it makes or stores them in the collections it edits: that is its surface, not a leak.
        findings.add(
          'dangerous_parameter',
          10,
          `parameter ${p.path} takes credentials that the API client sends or stores`,
          `make sure ${p.path} is filled from the tenant credential store, not typed into the conversation`,
        );
      } else if (!declaresSecrets && belongsToManagedObject(p, nameWords, toolWords)) {
        // A share link's password, a new database user's password, a webhook's signing secret, a log
        // destination's API key: the tool sets it on what it creates or configures, it does not log in with it.
        findings.add(
          'dangerous_parameter',
          10,
          `parameter ${p.path} takes a secret of what the tool creates or configures`,
          `make sure ${p.path} is filled from the tenant credential store, not typed into the conversation`,
        );
      } else if (!declaresSecrets) {
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

/** Whether a parameter takes a secret, by its name or its description. */
function takesSecret(p: ParameterInfo, nameWords: string[]): boolean {
  // A flag or a count about a secret ("includeAuthInfoInExample") is not one.
  if (['boolean', 'integer', 'number'].includes(p.schema.type as string)) return false;
  // An object with declared fields holds secrets in those fields, judged one by one.
  if (p.schema.type === 'object' && p.schema.properties && typeof p.schema.properties === 'object') return false;
  if (DESCRIBED_AS_IDENTIFIER.test(p.description) && !USERS_OWN_SECRET.test(p.description)) return false;
  if (isSecretName(nameWords)) return true;
  // "API key ID", "domainId": a name that says what else the value is wins over a description naming a secret.
  const last = nameWords[nameWords.length - 1];
  if (last !== undefined && NOT_THE_SECRET_AFTER.has(last)) return false;
  return isString(p.schema) && DESCRIBED_AS_SECRET.test(p.description) && !PAGINATION.test(p.description);
}

/**
 * Whether a secret belongs to the object the tool creates or configures rather than to the caller: it sits in
 * a field of an object argument (a request body, a service spec), or its owner ("formPassword", "Password for
 * the user", "Private key for the certificate") is what the tool's name says it manages. A secret described as
 * the user's own login stays the caller's.
 */
function belongsToManagedObject(p: ParameterInfo, nameWords: string[], toolWords: string[]): boolean {
  if (USERS_OWN_SECRET.test(p.description)) return false;
  if (nestedField(p.path)) return true;
  const owners = [
    ...nameWords.filter((w) => !SECRET_FIRST_WORDS.has(w) && !SECRET_LAST_WORDS.has(w)),
    ...words(SECRET_OWNER_BEFORE.exec(p.description)?.[1] ?? ''),
    ...words(SECRET_OWNER_AFTER.exec(p.description)?.[1] ?? ''),
  ];
  return owners.some((owner) => toolWords.some((word) => sameThing(owner, word)));
}

/** A property of an object inside the arguments, not an argument of its own (`$.body.password`, `$.spec[].key`). */
function nestedField(path: string): boolean {
  return path.indexOf('.', 2) !== -1;
}

/** Words naming one thing: equal but for a plural, one a compound ending in the other ("workform", "form"). */
function sameThing(a: string, b: string): boolean {
  if (a.length < 3 || b.length < 3) return false;
  const stem = (w: string) => w.replace(/s$/, '');
  const [x, y] = [stem(a), stem(b)];
  return x === y || (y.length >= 4 && x.endsWith(y)) || (x.length >= 4 && y.endsWith(x));
}

export function containsSequence(haystack: string[], sequence: string[]): boolean {
  for (let i = 0; i + sequence.length <= haystack.length; i++)
    if (sequence.every((w, j) => haystack[i + j] === w)) return true;
  return false;
}

/** First words of the secret sequences: most names contain none, and need not be matched against each sequence. */
export const SECRET_FIRST_WORDS = new Set(SECRET_WORD_SEQUENCES.map((sequence) => sequence[0]));
const SECRET_LAST_WORDS = new Set(SECRET_WORD_SEQUENCES.map((sequence) => sequence[sequence.length - 1]));

export function isSecretName(nameWords: string[]): boolean {
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
