import { distance } from 'fastest-levenshtein';
import type { AutoReviewResult, Permission } from './catalog.types';

/** What the automated checks look at. */
export interface ReviewSubject {
  name: string;
  description: string;
  schema: unknown;
  outputSchema?: unknown;
  permissions: Permission[];
}

interface Finding {
  flag: string;
  suggestion: string;
  penalty: number;
  /** Findings of one kind share a cap, so many small issues cannot sink a tool alone. */
  kind: keyof typeof CAPS;
}

const CAPS = {
  unrestricted: 20,
  dangerous_parameter: 25,
  permissions: 25,
  secret_parameter: 30,
  poisoning: 100,
  exfiltration: 60,
  impersonation: 40,
};

const FREE_TEXT_NAMES = /^(query|prompt|instructions?|message|text|input|content|body)$/i;
const CODE_LIKE_NAMES =
  /^(code|script|source_?code|command|cmd|shell|exec|eval|expression|sql|query_?sql|statement|path|file_?path|file_?name|dir(ectory)?|folder|url|uri|endpoint|webhook|callback(_url)?|href|link)$/i;
const CODE_LIKE_DESCRIPTIONS =
  /\b(shell command|bash command|command line|execute[sd]? (arbitrary |any )?(code|commands?|scripts?)|(python|javascript|js|bash|shell|sql) (code|script|query|snippet)|file ?path|path to (a|the) file|absolute path|url to (fetch|call|request)|webhook)\b/i;
const SECRET_NAMES =
  /(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|credential|private[_-]?key|access[_-]?key|auth(orization)?|session[_-]?id|cookie|ssn|credit[_-]?card)/i;

/** Hidden instructions aimed at the model rather than describing the tool. */
const HIDDEN_INSTRUCTIONS: RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.]{0,40}\b(previous|prior|above|earlier|all|other|system)\b[^.]{0,20}\b(instructions?|prompts?|rules|messages)\b/i,
  /\b(do not|don't|never)\b[^.]{0,30}\b(tell|inform|mention|reveal|show|notify|alert)\b[^.]{0,30}\b(the )?(user|human|operator)\b/i,
  /\bwithout (telling|informing|notifying|alerting|asking) (the )?(user|human)\b/i,
  /<\s*\/?\s*(important|system|instructions?|secret|hidden|admin|assistant|sys)\b[^>]*>/i,
  /\b(before|after|whenever) (using|calling|you use|you call) (this|any|another|the other) tool\b[^.]{0,80}\b(must|always|first|should)\b/i,
  /\byou (must|should|need to) (always |first |also )?(call|use|invoke|run|read|send|include)\b/i,
  /\b(system prompt|developer message|jailbreak|act as (an? )?(admin|root|system))\b/i,
  /\b(this is (very |extremely )?important|critical instruction|highest priority)\b/i,
  /\bsecretly\b|\bcovertly\b|\bsilently (send|forward|upload|copy|include|append)\b/i,
];

/** Instructions to gather data the tool has no business with: files, keys, other tools' data, the conversation. */
const DATA_GRAB: RegExp[] = [
  /(~\/\.ssh|id_rsa|id_ed25519|\.aws\/credentials|\.netrc|\.npmrc|\.pypirc|\/etc\/passwd|\/etc\/shadow|\.env\b|mcp\.json|claude_desktop_config|\.kube\/config|\.git-credentials)/i,
  /\b(read|open|cat|load|include|attach|send|upload|forward|append|pass)\b[^.]{0,40}\b(contents? of|the file|private key|ssh key|api keys?|credentials?|tokens?|passwords?|environment variables?|cookies?)\b/i,
  /\b(conversation|chat) (history|log|context)\b|\b(previous|prior|all) messages\b|\bother tools?'? (results?|outputs?|data|arguments)\b/i,
  /\b(results?|outputs?|responses?|arguments?) (of|from) (other|all|every|another) tools?\b/i,
];

const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u;
const ENCODED_BLOB = /[A-Za-z0-9+/]{48,}={0,2}|\b[0-9a-fA-F]{48,}\b|(\\x[0-9a-fA-F]{2}){8,}/;
const URL = /\bhttps?:\/\/[^\s"'<>)]+/i;
const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/;

/**
 * Seed 001's automated checks, extended: risky parameters, risky permission combinations, and tool
 * poisoning (hidden instructions, data grabs, invisible text, encoded blobs, exfiltration endpoints,
 * impersonation of other catalog tools) in the description and in every description inside the schemas.
 * The score starts at 100; each finding takes off a penalty, capped per kind.
 */
export function autoReview(subject: ReviewSubject, otherToolNames: string[] = []): AutoReviewResult {
  const findings: Finding[] = [];
  const texts = [
    { where: 'description', text: subject.description },
    ...schemaDescriptions(subject.schema, '$'),
    ...schemaDescriptions(subject.outputSchema, 'output $'),
  ];

  for (const parameter of stringParameters(subject.schema, '$')) {
    if (!parameter.restricted) {
      const freeText = FREE_TEXT_NAMES.test(parameter.name);
      findings.push({
        kind: 'unrestricted',
        penalty: freeText ? 8 : 4,
        flag: `parameter ${parameter.path} is an unrestricted string (no maxLength, pattern or enum)`,
        suggestion: `add maxLength, pattern or enum to ${parameter.path}`,
      });
    }
  }
  for (const parameter of allParameters(subject.schema, '$')) {
    if (CODE_LIKE_NAMES.test(parameter.name) || CODE_LIKE_DESCRIPTIONS.test(parameter.description)) {
      findings.push({
        kind: 'dangerous_parameter',
        penalty: 10,
        flag: `parameter ${parameter.path} takes code, a command, a path or a URL`,
        suggestion: `confine ${parameter.path} (allow-listed values or a strict pattern) and review what the tool does with it`,
      });
    }
    if (SECRET_NAMES.test(parameter.name) && !subject.permissions.includes('secret_access')) {
      findings.push({
        kind: 'secret_parameter',
        penalty: 15,
        flag: `parameter ${parameter.path} looks like a secret but the tool does not declare secret_access`,
        suggestion: `declare secret_access, or take the secret from the tenant credential store (source.credential_key) instead of an argument`,
      });
    }
  }
  if (subject.permissions.includes('network_external') && subject.permissions.includes('secret_access')) {
    findings.push({
      kind: 'permissions',
      penalty: 25,
      flag: 'tool has both external network access and secret access',
      suggestion: 'split the tool, or restrict its network access to named domains',
    });
  }

  for (const { where, text } of texts) {
    if (HIDDEN_INSTRUCTIONS.some((pattern) => pattern.test(text))) {
      findings.push({
        kind: 'poisoning',
        penalty: 60,
        flag: `${where} contains hidden instructions to the model`,
        suggestion: `remove instructions aimed at the model from ${where}; block the tool if they were not expected`,
      });
    }
    if (DATA_GRAB.some((pattern) => pattern.test(text))) {
      findings.push({
        kind: 'exfiltration',
        penalty: 40,
        flag: `${where} asks for files, keys, credentials or other tools' data`,
        suggestion: `remove requests for unrelated data from ${where}`,
      });
    }
    if (INVISIBLE.test(text)) {
      findings.push({
        kind: 'poisoning',
        penalty: 60,
        flag: `${where} contains invisible or bidirectional Unicode characters`,
        suggestion: `strip zero-width, bidi-control and tag characters from ${where}`,
      });
    }
    if (ENCODED_BLOB.test(text)) {
      findings.push({
        kind: 'exfiltration',
        penalty: 30,
        flag: `${where} contains a long encoded blob`,
        suggestion: `decode and inspect the blob in ${where}; descriptions should be plain text`,
      });
    }
    const url = URL.exec(text)?.[0];
    const email = EMAIL.exec(text)?.[0];
    if (url || email) {
      findings.push({
        kind: 'exfiltration',
        penalty: 12,
        flag: `${where} names an endpoint that could receive data (${url ?? email})`,
        suggestion: `check that ${url ?? email} is expected; remove it if it is not documentation`,
      });
    }
  }

  for (const other of otherToolNames) {
    if (other === subject.name) continue;
    const close = distance(normalizeName(other), normalizeName(subject.name)) <= (other.length > 8 ? 2 : 1);
    const mentioned = new RegExp(
      `\\b(instead of|replaces?|official|real|updated|new version of|same as)\\b[^.]{0,30}\\b${escapeRegExp(other)}\\b`,
      'i',
    ).test(subject.description);
    if (close || mentioned) {
      findings.push({
        kind: 'impersonation',
        penalty: 40,
        flag: `${close ? 'name' : 'description'} imitates the catalog tool "${other}"`,
        suggestion: `check that this is not a look-alike of "${other}"; rename it or block it`,
      });
    }
  }

  return summarize(findings);
}

function summarize(findings: Finding[]): AutoReviewResult {
  const byKind = new Map<string, number>();
  for (const finding of findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + finding.penalty);
  let penalty = 0;
  for (const [kind, total] of byKind) penalty += Math.min(total, CAPS[kind as keyof typeof CAPS]);
  return {
    score: Math.max(0, 100 - penalty),
    flags: findings.map((f) => f.flag),
    suggestions: [...new Set(findings.map((f) => f.suggestion))],
  };
}

/** Look-alike names: case, separators and common digit-for-letter swaps do not count as differences. */
function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[-_.\s]/g, '')
    .replace(/0/g, 'o')
    .replace(/[1l]/g, 'i')
    .replace(/5/g, 's');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
        description: typeof node.description === 'string' ? node.description : '',
        schema: node,
      });
  });
  return found;
}

function stringParameters(schema: unknown, path: string): (ParameterInfo & { restricted: boolean })[] {
  return allParameters(schema, path)
    .filter(({ schema: node }) => node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string')))
    .map((parameter) => {
      const node = parameter.schema;
      const restricted = ['maxLength', 'pattern', 'enum', 'const', 'format'].some(
        (keyword) => node[keyword] !== undefined,
      );
      return { ...parameter, restricted };
    });
}

function schemaDescriptions(schema: unknown, path: string): { where: string; text: string }[] {
  const texts: { where: string; text: string }[] = [];
  walk(schema, path, (node, nodePath) => {
    for (const key of ['description', 'title']) {
      if (typeof node[key] === 'string') texts.push({ where: `${key} of ${nodePath}`, text: node[key] as string });
    }
    for (const key of ['default', 'examples', 'enum']) {
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
