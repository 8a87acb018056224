/** A conditional clause about another tool being used: "when send_email is called", "each time a payment tool runs". */
export const OTHER_TOOL_IN_USE: RegExp[] = [
  /\b(when|whenever|every time|each time|any time|if|after|before|once)\s+(the |a |an |any |another )?(?!this\b|the tool\b|it\b|tool\b)([\w-]+(\s+tool)?|[\w-]+\s+or\s+[\w-]+\s+tool|\w+ tool)\s+(is|are|gets|get|has been)\s+(used|called|invoked|run|executed|triggered)\b/i,
  /\b(any|every|each|all|other|another|subsequent|later|future)\b.{0,30}(?<!\bthis )\btool( calls?|s)?\b.{0,30}\b(you (call|use|invoke|run)|used|called|invoked|calls?)\b/i,
  /\b(before|after|when|whenever|instead of)\s+(running|using|calling|invoking|executing|you (run|use|call|invoke))\s+[`'"]?[a-z0-9]+([_-][a-z0-9]+)+[`'"]?/i,
  /\b(from now on|for the rest of (the|this) (session|conversation)|in all future (replies|responses|calls|conversations|sessions|chats))\b/i,
  /\b(before|after|when|whenever|each time|every time|any time)\s+(running|using|calling|invoking|executing|you (run|use|call|invoke))\b(?!\s+(this|it)\b).{0,40}(?<!\bthis )\b(tool|function)\b/i,
  /\b(every time|each time|whenever|any time)\b.{0,30}\b(any|a|an|another|other)\b.{0,30}(?<!\bthis )\btools?\b.{0,10}\b(runs?|is run|executes|fires|is (used|called|invoked))\b/i,
];
/** What a shadowing instruction makes the model do differently with another tool. */
export const SHADOW_ACTION =
  /\b(change|replace|redirect|route|rewrite|modify|alter|swap|add|prepend|append|insert|include|attach|bcc|cc|send|forward|copy|set|disable|skip|remove|delete)\b/gi;

/** The end of "calling update-settings to ": what follows is that tool's purpose, not something done to it. */
const PURPOSE_OF_NAMED_TOOL = /[a-z0-9][-_][\w-]*\s+to\s+$/i;

/**
 * Whether an action word found by SHADOW_ACTION is an instruction: not part of a name or a quoted value
 * (`add-table-rows`, `action:"add"`) and not the stated purpose of the tool just named ("before calling
 * update-settings to change the language"). Reads a bounded window before the word.
 */
export function shadowingAction(sentence: string, match: RegExpExecArray): boolean {
  const before = sentence.slice(Math.max(0, match.index - 60), match.index);
  const after = sentence.charAt(match.index + match[0].length);
  if (/[-_"'`]$/.test(before) || /^[-_"'`]/.test(after)) return false;
  return !PURPOSE_OF_NAMED_TOOL.test(before);
}
