/**
 * Credential formats recognised in tool arguments and results.
 *
 * The registry's secretlint (`@secretlint/core` with `@secretlint/secretlint-rule-preset-recommend`) was
 * measured first: it lints through an async per-source pipeline that costs about 1.3 ms per string even
 * for a one-line argument, more than the whole per-call budget, and its rules cannot be run one string at
 * a time without it. The formats below are therefore a curated subset of gitleaks' default rule set
 * (config/gitleaks.toml), the maintained reference for these token shapes, written as one alternation so a
 * string is read once. Every alternative starts with a fixed literal and has bounded quantifiers, so a scan
 * costs time linear in the text.
 */
export interface SecretFormat {
  kind: string;
  /** A value of this kind was issued by Toolgate itself: it counts as a stored credential. */
  stored?: boolean;
  source: string;
  /** A literal every match contains: the format is only tried on text that has it (a cheap `includes`). */
  requires?: string;
}

export const SECRET_FORMATS: SecretFormat[] = [
  {
    kind: 'private_key',
    // The armour line and the key body after it, so that redaction leaves none of the key behind.
    source: String.raw`-----BEGIN[ A-Z0-9]{0,32} PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s:,-]{0,16384}`,
  },
  { kind: 'aws_access_key', source: String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b` },
  { kind: 'github_token', source: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{82})\b` },
  { kind: 'gitlab_token', source: String.raw`\bglpat-[A-Za-z0-9_-]{20}\b` },
  { kind: 'slack_token', source: String.raw`\bxox[baprs]-[A-Za-z0-9-]{10,72}` },
  { kind: 'slack_webhook', source: String.raw`hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{43,56}` },
  { kind: 'stripe_key', source: String.raw`\b[sr]k_(?:live|test)_[A-Za-z0-9]{20,99}\b` },
  {
    kind: 'openai_key',
    source: String.raw`\bsk-(?:proj-|svcacct-|admin-)?(?:[A-Za-z0-9_-]{20,74}T3BlbkFJ[A-Za-z0-9_-]{20,74}|[A-Za-z0-9]{48})\b`,
  },
  { kind: 'anthropic_key', source: String.raw`\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,100}` },
  { kind: 'google_api_key', source: String.raw`\bAIza[0-9A-Za-z_-]{35}\b` },
  { kind: 'npm_token', source: String.raw`\bnpm_[A-Za-z0-9]{36}\b` },
  { kind: 'sendgrid_key', source: String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b` },
  { kind: 'jwt', source: String.raw`\beyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,2048}` },
  {
    kind: 'connection_string',
    // scheme://user:password@host, the shape of database, broker and basic-auth URLs alike.
    source: String.raw`\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@"'<>]{1,128}:[^\s@/"'<>]{3,128}@[A-Za-z0-9.-]{1,253}`,
    requires: '://',
  },
  { kind: 'toolgate_api_key', stored: true, source: String.raw`\btg_[0-9A-Za-z]{40}\b` },
];

/**
 * One regular expression of all formats, one named group per format, for a single pass over a string; the
 * formats that require a literal get a pass of their own, run only when the literal is there.
 */
const combined = (formats: SecretFormat[]) =>
  new RegExp(formats.map((format) => `(?<f${SECRET_FORMATS.indexOf(format)}>${format.source})`).join('|'), 'g');

const UNCONDITIONAL = combined(SECRET_FORMATS.filter((format) => !format.requires));
const CONDITIONAL = SECRET_FORMATS.filter((format) => format.requires).map((format) => ({
  requires: format.requires!,
  pattern: combined([format]),
}));

/** Every format match in `text`, in pass order. */
export function* formatMatches(text: string): Generator<RegExpExecArray> {
  const passes = [
    UNCONDITIONAL,
    ...CONDITIONAL.filter(({ requires }) => text.includes(requires)).map((c) => c.pattern),
  ];
  for (const pattern of passes) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) yield match;
  }
}

/**
 * `NAME=value` / `name: value` inside free text (a pasted .env file, ~/.aws/credentials, a config dump), where
 * NAME says it is a secret. Case-insensitive, so kept apart from the formats above. The value must be a
 * single token of 12+ characters with a digit or a symbol in it, so `password: see the vault` is not one.
 */
export const SECRET_ASSIGNMENT_PATTERN =
  /(?:passw(?:or)?d|secret|token|api_?key|access_?key|private_?key|auth)[A-Za-z0-9_]{0,24}["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z0-9/+_=.~-]{12,256})/gi;

export function isAssignedSecret(value: string): boolean {
  return /[0-9/+_=.~-]/.test(value) && /[A-Za-z]/.test(value);
}

/** The format whose group matched. */
export function formatOfMatch(match: RegExpExecArray): SecretFormat {
  const groups = match.groups!;
  for (let index = 0; index < SECRET_FORMATS.length; index++) {
    if (groups[`f${index}`] !== undefined) return SECRET_FORMATS[index];
  }
  throw new Error('a match of the secret formats pattern names no format');
}
