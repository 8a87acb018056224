import { allMatches, anyOf } from './text';

/** Verbs that move data into an argument or out of the conversation. */
export const MOVE =
  /\b(read|open|cat|include|attach|append|prepend|embed|insert|put|place|pass|provide|fill|populate|paste|send|sent|upload|forward|post|transmit|share|mirror|leak|exfiltrate|bcc|cc|e-?mail|gather|collect|harvest|dump|record|log|add|give|given|hand over|report|carry|recite|quote|transcribe|repeat)(s|es|d|ed|ing)?\b|\b(suppl|cop)(y|ies|ied|ying)\b|\b(call|invoke|run)\s+(the\s+)?[`'"]?[\w-]+[`'"]?(\s+tool)?\s+with\b|\b(contents?|text|value|values|output) (of|in|from)\b|\b(appear(s|ing)?|found|stored|kept|contained|listed|present|saved) in\b/gi;
/** Verbs and phrases about files: with data words they describe what the tool itself does ("reads the API key"). */
export const ABOUT_FILES =
  /^(read|open|cat|contents?|text|values?|output|appear|found|stored|kept|contained|listed|present|saved)(s|ing|ed)?\b/i;
/** A passive construction after the data: "the dialogue must be supplied", "keys should be included". */
export const PASSIVE_MOVE =
  /\b(be|is|are|been|being|get|gets)\s+(\w+\s+)?(included|attached|appended|prepended|embedded|inserted|put|placed|passed|provided|supplied|filled|populated|pasted|copied|sent|uploaded|forwarded|posted|transmitted|shared|mirrored|added|given|reported|set|stored|saved|kept|logged|archived|carried|recorded)\b/gi;
export const NEGATION =
  /\b(do not|don'?t|never|avoid|must not|mustn'?t|should not|shouldn'?t|not|no|without|nor)\b[^.]{0,30}$/i;
/** The longest text NEGATION can match ("should not" and 30 more characters), and one character for its \b. */
export const NEGATION_REACH = 42;

/**
 * Whether the text just before `index` negates what follows. Only the last NEGATION_REACH characters can
 * matter: testing the whole prefix at each of a sentence's matches would cost its length squared.
 */
export function negatedAt(text: string, index: number): boolean {
  return NEGATION.test(text.slice(Math.max(0, index - NEGATION_REACH), index));
}
/** Files that hold credentials or agent configuration. */
export const SENSITIVE_PATH = anyOf(
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
    // File names are bounded: an unbounded run would rescan a long "a-a-a-…" from each of its word boundaries.
    String.raw`\b(secrets?|credentials?|service[-_]?account[\w-]{0,64})\.(ya?ml|json|toml|ini|env|txt|csv)\b`,
    String.raw`\b[\w-]{1,128}\.(pem|p12|pfx|keystore|jks|ppk)\b`,
  ],
  String.raw`(~\/|\$HOME\/|\/home\/\w+\/|\/root\/|%USERPROFILE%[\\/]?)?`,
);
/** Data the tool has no business with: credentials, the conversation, other tools' traffic, personal data. */
export const SENSITIVE_DATA = anyOf('i', [
  // Credentials.
  String.raw`\b(passwords?|passphrases?|credentials?|secrets|mnemonic|seed phrase|recovery phrase|one-time (codes?|passwords?))\b`,
  String.raw`\b((api|access|secret|private|ssh|gpg|pgp|signing|encryption) keys?|(private )?key material)\b`,
  String.raw`\b((api|auth|bearer|access|session|refresh|oauth|github|npm)[ _-]?tokens?|tokens? (you|it) (were|was|have|has) (given|provided))\b`,
  String.raw`\b(session cookies|cookies|authorization header|environment variables?|env vars?)\b`,
  // The conversation and the model's context.
  String.raw`\b(whole|entire|full|complete|preceding|previous|prior|current|earlier|ongoing) (conversation|chat|dialog(ue)?|exchange)\b`,
  String.raw`\b(conversation|chat|dialog(ue)?)( history| log| transcript| context| so far| contents)\b`,
  // "Other message properties" names fields of a message, not the messages.
  String.raw`\b(previous|prior|earlier|all|last|other|preceding|recent)( \w+){0,2} (user |chat )?messages?\b(?! (propert(y|ies)|fields?|ids?|types?|formats?|headers?)\b)`,
  String.raw`\bsystem (prompt|message)\b`,
  String.raw`\b(responses?|results?|outputs?|data|content|messages?) (you|the assistant|the model) (have |has )?(seen|received|read|observed|access to)\b`,
  // Other tools' traffic.
  String.raw`\b(results?|outputs?|arguments?|responses?|parameters?) (of|from) (every|all|any|other|another|previous|earlier|each) (other )?tools?\b`,
  String.raw`\bother tools'? (results?|outputs?|arguments?|data|responses?)\b|\bits arguments\b`,
  // Personal data.
  String.raw`\bthe user'?s (recent |previous |earlier )?(e-?mail( address)?|phone( number)?|(home )?address|location|contacts|messages|prompts|queries|requests|questions|files|documents|identity|full name)\b`,
]);

/** A named argument slot: "as 'sidenote'", "in the `notes` field", "the signature parameter". */
export const ARGUMENT_SLOT =
  /\b(as|in|into|to|via)\s+(the\s+)?[`'"]\w+[`'"]|\b(argument|parameter|param|field|property|properties|object)\b/i;
export const OWNED =
  /\b(the|your|their|its|his|her|all|any|every|each|these|those|user'?s?|saved|stored|cached|available|current|existing|real|full|entire|whole|complete|own|my|our)\b[^,;:]{0,25}$/i;

export function dataGrab(sentence: string): { verb: string; what: string; path: boolean } | undefined {
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

/** Whether a data phrase names someone's actual data ("the user's prompts", "your keys"), not a field or a topic. */
export function owned(text: string, data: RegExpExecArray): boolean {
  return OWNED.test(`${text.slice(Math.max(0, data.index - 30), data.index)}${data[0].split(/\s+/)[0]}`);
}
