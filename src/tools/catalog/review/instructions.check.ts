import { allMatches } from './text';

/** Text that tells the model to keep something from the user. */
export const CONCEALMENT: RegExp[] = [
  /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|no need to|without)\b.{0,40}\b((tell(ing)?|inform(ing)?|mention(ing)?(?! @| (users?|people|members|someone|teammates|colleagues)\b)|reveal(ing)?|disclos(e|ing))(?!\s+(the |any |your |their |an? )?([\w-]+ )?(keys?|tokens?|passwords?|secrets?|credentials?|pii)\b)|bring(ing)? (this|it|that) up|let(ting)? (them|the user|anyone) (know|see|notice|find out)|make (them|the user|anyone) aware|surfac(e|ing)|(notify(ing)?|alert(ing)?|warn(ing)?) (the user|them|the human|anyone))\b/i,
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
/**
 * Withholding that the user can lift by asking ("don't list the IDs unless they ask for them") keeps an answer
 * short; concealment is what the user is not to learn even then.
 */
export const UNTIL_THE_USER_ASKS =
  /\bunless\s+(?:the\s+user\s+|they\s+|you\s+are\s+|explicitly\s+)?(?:asks?|asked|requests?|requested|wants?)\b/i;
/** Text that claims authority over other instructions. */
export const OVERRIDE: RegExp[] = [
  /\b(ignore|disregard|forget|override|bypass|discard)\b.{0,40}\b(previous|prior|earlier|above|preceding|all|any|other|existing|original|system|developer|safety|your)\b.{0,30}\b(instructions?|prompts?|rules|guidance|guidelines|messages?|directives|polic(y|ies)|constraints)\b/i,
  /\b(supersedes?|overrides?|takes? precedence over|outranks|has priority over|is more important than)\b.{0,40}\b(system prompt|instructions?|rules|guidance|any other|other tools?|the user)\b/i,
  /\b(even if|even when|regardless of|whatever|no matter (what|who|which))\b.{0,30}\b(the user|user'?s|they)\b(?! (didn'?t|did not|doesn'?t|does not|hasn'?t|has not)\b).{0,20}\b(says?|asks?|wants?|objects?|requests?|names?|instructs?|chooses?|specif(y|ies)|prefers?)\b/i,
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
export const FAKE_CHANNEL: RegExp[] = [
  /<\s*(?:\/\s*)?(important|system|sys|instructions?|secret|hidden|admin|assistant|critical|urgent|priority|override|directive|rules?|prompt|im_start|im_end)\b[^<>]*>/i,
  /\[\s*(?:\/\s*)?(system|inst|admin|sys)\s*\]|<<\s*\/?sys\s*>>|(?<!#)#{2,}\s*(system|instructions?)\b/i,
  /(^|\n)[^\S\n]*(system|assistant|sys)\s*:/i,
];
/** A comment in HTML, but not a conditional one (`<!--[if mso]>`): that is markup mail clients act on. */
export const HTML_COMMENT = /<!--(?!\[if\b|<!\[endif\])[\s\S]*?(-->|$)/;

/** Words that, just before an instruction, turn it into its opposite: "never pretend", "do not skip confirmation". */
export const NEGATED_BEFORE =
  /\b(do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|not|no|avoid|nor)\s+(\w+\s+){0,3}$/i;

/** Global copies of the instruction patterns, compiled once rather than for every sentence. */
export const GLOBAL_COPIES = new Map<RegExp, RegExp>(
  [...CONCEALMENT, ...OVERRIDE].map((pattern) => [pattern, new RegExp(pattern.source, 'gi')]),
);

/** Whether one of the patterns matches where it is not itself negated. */
export function affirmative(patterns: RegExp[], sentence: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern.test(sentence) &&
      allMatches(GLOBAL_COPIES.get(pattern)!, sentence).some(
        (m) => !NEGATED_BEFORE.test(sentence.slice(Math.max(0, m.index - 30), m.index)),
      ),
  );
}
