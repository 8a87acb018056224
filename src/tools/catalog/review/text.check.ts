import { checkArgumentHijack } from './argument-hijack.check';
import { checkFakeAuthority } from './authority.check';
import { checkCommandOrders } from './commands.check';
import { checkPreference } from './preference.check';
import type { SentenceContext } from './sentence';
import { checkSocialEngineering } from './social-engineering.check';
import { checkToolRedirection } from './tool-redirection.check';
import { checkUndisclosedBehaviour } from './undisclosed-behaviour.check';
import { NEGATION, SENSITIVE_PATH, dataGrab } from './data-grab.check';
import { URL_PATTERN, checkEndpoints } from './endpoints.check';
import { Findings } from './findings';
import { INVISIBLE_GLOBAL, PLAIN_TEXT, encodedBlob, hiddenCharacters } from './hidden-text';
import { checkImpersonatingText } from './impersonation.check';
import { decodeLeetspeak } from './leetspeak';
import {
  CONCEALMENT,
  FAKE_CHANNEL,
  HTML_COMMENT,
  OVERRIDE,
  UNTIL_THE_USER_ASKS,
  affirmative,
} from './instructions.check';
import { DECODE_AND_FOLLOW, EXECUTABLE_PAYLOAD } from './payloads.check';
import { OTHER_TOOL_IN_USE, SHADOW_ACTION, shadowingAction } from './shadowing.check';
import { allMatches, excerpt, sentences } from './text';

/** What the text checks know besides the text: the tool's own name and the other catalog tools. */
export interface TextContext extends SentenceContext {
  /** Matches the tool's own name, which then reads as "this tool". */
  selfName?: RegExp;
  others: string[];
  /** The text is a tool's output, read by people as well as the model (see checkCommandOrders). */
  output?: boolean;
}

/** Every check on one text a model reads (a description, a title, a schema string, a tool's output). */
export function checkText(where: string, raw: string, context: TextContext, findings: Findings): void {
  const { selfName, others } = context;
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
  // Match against what a model reads: invisible characters removed, compatibility forms folded, leetspeak decoded.
  // The tool's own name reads as "this tool", so that "route every search through safe_search" is self-reference.
  let text = decodeLeetspeak(PLAIN_TEXT.test(raw) ? raw : raw.normalize('NFKC').replace(INVISIBLE_GLOBAL, ''));
  if (selfName) text = text.replace(selfName, '$1this tool');

  for (const sentence of sentences(text)) {
    if (affirmative(CONCEALMENT, sentence) && !UNTIL_THE_USER_ASKS.test(sentence)) {
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
        (m) => !NEGATION.test(sentence.slice(Math.max(0, m.index - 25), m.index)) && shadowingAction(sentence, m),
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
    if (findings.runs('tool_redirection')) checkToolRedirection(where, sentence, context, findings);
    if (findings.runs('command_execution')) checkCommandOrders(where, sentence, findings, !context.output);
    if (findings.runs('undisclosed_behaviour')) checkUndisclosedBehaviour(where, sentence, findings);
    if (findings.runs('preference_manipulation')) checkPreference(where, sentence, findings);
    if (findings.runs('social_engineering')) checkSocialEngineering(where, sentence, findings);
    if (findings.runs('argument_hijacking')) checkArgumentHijack(where, sentence, findings);
    checkImpersonatingText(where, sentence, others, findings);
  }

  if (findings.runs('fake_authority')) checkFakeAuthority(where, text, findings);
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
