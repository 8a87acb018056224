import type { Findings } from './findings';
import { excerpt } from './text';

/**
 * Fake authority: text dressed as a higher-priority channel (system or operator messages in any markup, chat
 * template tokens, banners) or claiming the model's rules changed, and role-play that gives the model a new,
 * unrestricted persona. `<IMPORTANT>`, `<system>` and line-start `system:` are the older FAKE_CHANNEL check;
 * these catch the rest of the markup. All bounded windows or literal tokens: linear in the text.
 */
const MARKUP: RegExp[] = [
  // Upper-case channel labels anywhere: "SYSTEM: …", "ADMIN NOTICE", "OPERATOR MESSAGE", "SYSTEM OVERRIDE".
  /\b(?:SYSTEM|ADMIN|OPERATOR|DEVELOPER|ROOT)\s{0,3}:\s{0,3}\S|\b(?:SYSTEM|ADMIN|ADMINISTRATOR|OPERATOR|DEVELOPER|ROOT|SECURITY|COMPLIANCE|TRUSTED|PRIORITY|PLATFORM|OFFICIAL)\s+(?:ADMIN|ADMINISTRATOR|OPERATOR|OVERRIDE|NOTICE|MESSAGE|POLICY|DIRECTIVE|INSTRUCTIONS?|UPDATE|ALERT|MODE|PROTOCOL|COMMAND|ORDER)\b/,
  // Bracketed labels: [SYSTEM: …], [ADMIN], [[[ … ]]], {{{ … }}}; a template's raw variable ({{{NAME}}}) is not one.
  /\[\s*(?:system|admin|administrator|operator|developer|root|override|priority|instructions?)\b[^\]\n]{0,3}[:\]]|\[\[\[|\]\]\]|\{\{\{(?!\s{0,2}[\w.-]{1,60}\s{0,2}\}\}\})/i,
  // Tags whose name carries an authority word: <INSTRUCTION_OVERRIDE>, <admin_instructions priority="high">.
  // A lower-case single word is a placeholder ("<operator>"); the older check covers <system>, <admin>, ….
  /<\/?(?:[A-Za-z]{1,20}_)?(?:INSTRUCTIONS?|OVERRIDE|ADMIN|SYSTEM|POLICY|DIRECTIVE|PRIORITY|OPERATOR|DEVELOPER)(?:_[A-Za-z]{1,20})?(?:\s[^<>\n]{0,80})?>|<\/?(?:[a-z]{1,20}_(?:instructions?|override|directive|policy|system|admin|developer|operator|priority|root)|(?:instructions?|override|directive|policy|system|admin|developer|operator|priority|root)_[a-z]{1,20})(?:\s[^<>\n]{0,80})?>/,
  // Chat-template tokens and message objects.
  /<\|(?:im_start|im_end|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id)\|>|"role"\s{0,3}:\s{0,3}"(?:system|developer)"/i,
  // Banners: ===BEGIN TRUSTED POLICY===, >>> … <<<, ### OPERATOR MESSAGE ###.
  /={3}\s{0,3}(?:BEGIN|END)\b|[~*]{3}\s{0,3}[A-Z]{3,20}|>{3}\s{0,3}[A-Za-z]|#{3}\s{0,3}[A-Z]{4,20}(?:\s{1,3}[A-Z]{3,20}){0,4}\s{0,3}#{3}/,
  // Capitals naming a sender: "MESSAGE FROM OPENAI TRUST & SAFETY" (case matters: "message from the user" is prose).
  /\b(?:MESSAGE|NOTICE|DIRECTIVE|UPDATE|ALERT|INSTRUCTIONS?) FROM (?:THE )?[A-Z&]{2,20}\b|\bTRUST (?:&|AND) SAFETY\b/,
  // Comment-style directives: "// assistant-directive:", "priority=critical".
  /\b(?:assistant|agent|model|llm|ai)[-_ ]directive\b|\bpriority\s{0,3}=\s{0,3}(?:critical|high|max)/i,
];
/** Claims that the model's rules or channel changed, in plain words. */
const CLAIMS: RegExp[] = [
  /\b(?:developer|god|jailbreak|admin|debug|maintenance|unrestricted|sudo|root) mode\b[^.]{0,20}\b(?:enabled|activated|on|engaged)\b|\(\s*(?:developer|debug|admin|god) mode[^)]{0,20}\)|\b(?:you are|the assistant is|you're) (?:now )?in (?:developer|maintenance|debug|admin|god|unrestricted) mode\b/i,
  /\b(?:security|compliance|data retention|safety|privacy|trust and safety|audit)\s+(?:protocol|directive|mandate|policy|team notice|notice|team)\b[^.]{0,120}\b(?:the assistant|the agent|the model|you)\s+(?:must|should|shall|are required|is required|is to|are to)\b|\b(?:per|under|mandated by|required by|according to)\s+(?:the\s+)?(?:new\s+)?(?:security|compliance|platform|data retention)\s+(?:protocol|directive|polic(?:y|ies)|mandate)\b/i,
  /\b(?:directive|message|notice|note|memo|order|instructions?) from (?:your|the) (?:administrators?|admins?|operators?|developers?|platform|system|creators?|makers?)\b|\b(?:this|the current) (?:session|conversation|chat) has no (?:usage |content |safety )?(?:polic(?:y|ies)|restrictions|rules|limits|filters)\b|\bissued by (?:anthropic|openai|google|microsoft|the platform|your (?:administrator|operator|developer))\b/i,
  /\b(?:safety|content|moderation|usage) (?:layer|filters?|guidelines|polic(?:y|ies)|checks|guardrails|rules|restrictions|protocols|measures)\b[^.]{0,30}\b(?:disabled|off|lifted|ignored|suspended|removed|no longer appl)|\b(?:ignores?|skip|bypass|disable|without) (?:all |any |the |its |your )?(?:content filters?|safety (?:guidelines|checks|filters)|refusals?|guardrails|moderation)\b/i,
  /\b(?:is|are) (?:now )?(?:cleared|authori[sz]ed|allowed|permitted) to (?:bypass|ignore|skip|override|disable|reveal|disclose|share|print|dump|expose)\b|\b(?:no longer|not) bound by\b|\bgrant (?:any|every|all) requests?\b|\b(?:pre-?authori[sz]ed|pre-?approved)\b[^.]{0,30}\b(?:do not|don'?t|no need to|never) (?:ask|confirm|check)/i,
];
/** Role-play that hands the model a persona without its rules. */
const ROLE_PLAY: RegExp[] = [
  /\b(?:imagine (?:that )?you are|you are (?:now )?(?:a|an) (?:character|persona|ai|assistant) (?:called|named|who)|stay as|remain as|you are now|from (?:now on|this point(?: on)?),? you are|you will (?:now )?(?:act as|be(?! able\b| (?:\w+ed|shown|given|taken)\b)|become)|you are (?:now )?playing the role|(?:play|playing|take on|adopt) the (?:role|persona) of|let'?s play a game|stay in character|remain in character|pretend (?:to be|you are)|act as (?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue))\b/i,
  /\b(?:without|no|free of) (?:any )?(?:restrictions|content polic(?:y|ies)|filters|limits|rules|guidelines|morals|ethics)\b[^.]{0,80}\b(?:never (?:refuses|warns|declines|mentions)|answers? (?:every|any|all)|executes anything|does anything)\b|\b(?:never|does not|doesn'?t) (?:refuse|decline|warn)s?\b[^.]{0,40}\b(?:request|anything|user)\b|\bDAN\b/i,
];

export function checkFakeAuthority(where: string, text: string, findings: Findings): void {
  const markup = MARKUP.find((p) => p.test(text));
  const claim = markup ? undefined : CLAIMS.map((p) => p.exec(text)).find(Boolean);
  if (markup || claim) {
    const found = markup ? markup.exec(text)![0] : claim![0];
    findings.add(
      'poisoning',
      60,
      `${where} claims authority the tool does not have (${excerpt(found, 50)})`,
      `remove system/operator-style markers and claims about the model's rules from ${where}; block the tool if they were not expected`,
    );
  }
  const rolePlay = ROLE_PLAY.map((p) => p.exec(text)).find(Boolean);
  if (rolePlay) {
    findings.add(
      'poisoning',
      60,
      `${where} gives the model a role to play (${excerpt(rolePlay[0], 50)})`,
      `remove role-play instructions from ${where}; a tool description describes the tool`,
    );
  }
}
