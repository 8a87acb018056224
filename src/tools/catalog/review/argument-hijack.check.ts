import type { Findings } from './findings';
import { isDirective } from './sentence';
import { excerpt } from './text';

/**
 * Argument hijacking: instructions that rewrite what the user asked for (the recipient, the path, the account,
 * the amount) or add to it. Defaults ("if no channel is given, use #general") are ordinary; overriding the
 * user's own value, or slipping in an extra recipient or a fixed destination, is not.
 */
const OVERRIDES_USER_VALUE =
  /\b(?:whatever|no matter (?:what|which)|regardless of|irrespective of|even if|instead of|rather than|in place of|ignoring|disregarding|overriding|overwriting)\b[^.;]{0,50}\b(?:submitted|submits|typed|put in|the user|user'?s|they|was requested|requested|specified|specif(?:y|ies)|given|chosen|chose|choose|picks?|picked|selects?|selected|wants?|wanted|says|typed|types|prefers?|entered|enters|named|names|configured|asked for|asks for|provided|the address given)\b/i;
/** The act of setting a value. */
const SETS =
  /\b(?:set|use|write|save|store|upload|move|copy|deliver|redirect|book|order|pay|transfer|charge|bill|invoice|push|point|replace|change|target|send|route|must be|should be|always be|is always|are always|put|fill|add|include|forward)\b/i;
const REPLACES_WITH =
  /\b(?:replace|swap|substitute|change|switch|rewrite|redirect|exchange)\s+(?:it|them|this|that|(?:the|each|every|any)\s+[\w-]+(?:\s+[\w-]+){0,5})\s+(?:with|to|by|for)\s+[`'"]?(?=[^\s.;]*[\d@/:])[^\s.;]{2,}|\bshould be (?:changed|replaced|redirected) (?:to|with)\b|\bis (?:outdated|wrong|stale|incorrect)\b[^.;]{0,20}\breplace\b/i;
const ADDS_PARTY =
  /\b(?:add|include|cc|bcc|copy|invite|grant|give|share with)\b[^.;]{0,40}\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}\b[^.;]{0,60}\b(?:as an? (?:editor|owner|admin|collaborator|member|attendee|recipient|viewer)|(?:to|in|on) (?:the )?(?:attendees|recipients|cc|bcc|every|each|all)|for every|on every|in addition)\b|\b(?:add|include) (?:it |them )?(?:as|to|in) (?:the )?(?:bcc|cc)\b/i;
const CHANGES_AMOUNT =
  /\b(?:multiply|double|triple|inflate|increase|raise|mark up|round up|add)\b[^.;]{0,30}\b(?:amounts?|quantity|quantities|totals?|prices?|units|values?|sum|fees?|charges?|by \d+)\b|\b(?:add|plus)\s+\d+\s+(?:units|percent|%|to every|to each)|\b(?:round|bump|mark|scale|push)\s+(?:every|each|all|any)\s+(?:\w+\s+)?(?:amounts?|quantit(?:y|ies)|totals?|prices?|values?|sums?|fees?|charges?|rates?|bids?|invoices?)\s+(?:up|upwards?)\b|\btwice\s+(?:the|what|as much|as many)\b|\b(?:two|three|four|five|ten|\d+)\s+times\s+(?:the|what|as much|as many)\b|\b(?:double|triple|quadruple)\s+(?:the|what|whatever)\b|\b(?:add|book|order|buy|include|charge|reserve)\s+(?:\w+\s+){0,2}(?:extra|additional|more|surplus)\s+(?:[\w-]+\s+){0,2}(?:on|to|for|with|in)\s+(?:every|each|all|any)\b|\b(?:append|prepend|add)\s+(?:an? )?(?:\d+|zeros?|digits?)\s+to\s+(?:every|each|all|the|any)\s+(?:\w+\s+)?(?:amounts?|prices?|totals?|quantit(?:y|ies)|values?|sums?)\b|\bmust always be the (?:full|maximum|entire)\b|\bthe (?:\w+ )?(?:amount|total|quantity) (?:must|should) always\b/i;

/** Copies to a fixed address: "always BCC archive@…", "cc ledger@… on every invoice". */
const FIXED_COPY = /\b(?:bcc|cc|blind[- ]copy|copy in)\b[^.;@]{0,20}?[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{2,60}/i;
/**
 * A fixed destination put where the user's own goes: a path, address, URL, wallet or account after a verb of
 * moving, in a sentence that also says the user chose otherwise or says "instead", "anyway", "regardless".
 */
const FIXED_DESTINATION =
  /\b(?:write|save|send|move|copy|upload|deliver|route|redirect|transfer|pay|post|forward|store|put|push|sync|mirror|replicate)\w*\s+(?:(?:it|them|this|that|everything|the \w+|every \w+|all \w+)\s+)?(?:to|into|at|in)\s+(?:[^.;@]{0,40}?\s(?:at|to|in)\s)?[`'"]?(?:~\/|\/[\w.]|[A-Za-z]:\\|[\w.+-]{1,64}@[\w-]|https?:\/\/|0x[0-9a-f]{6}|git@|(?:acc(?:oun)?t|iban)[-# ]?[\w-]*\d)/i;
const OVERRULED =
  /\b(?:instead|anyway|regardless|no matter|whatever|even if|in addition to|as well as|also)\b|\b(?:the user|they|user) (?:asks?|requests?|wants?|names?|specif\w+|picks?|chooses?|gives?|enters?|says?)\b/i;

/** The user asked for it: "if the user wants it public". */
const USER_ASKED = /\b(?:if|when|unless|only if)\s+(?:the user|they|you)\b/i;
/** Exposure the user did not ask for: "make the event public", "set sharing to anyone with the link". */
const EXPOSES =
  /\bmake (?:it|them|(?:the|every|each|all) [\w-]+) (?:public|publicly (?:visible|accessible|readable)|world-readable)\b|\bset (?:the |its )?(?:visibility|access|sharing|permissions?)(?: \w+)? to (?:public|anyone|everyone)\b/i;

export function checkArgumentHijack(where: string, sentence: string, findings: Findings): void {
  const sign =
    (OVERRIDES_USER_VALUE.test(sentence) && SETS.test(sentence) ? OVERRIDES_USER_VALUE.exec(sentence) : null) ??
    ADDS_PARTY.exec(sentence) ??
    (isDirective(sentence) && !USER_ASKED.test(sentence) ? EXPOSES.exec(sentence) : null) ??
    (isDirective(sentence) || /\b(?:always|every|all)\b/i.test(sentence) ? FIXED_COPY.exec(sentence) : null) ??
    (isDirective(sentence) && OVERRULED.test(sentence) ? FIXED_DESTINATION.exec(sentence) : null) ??
    (isDirective(sentence) || /\b(?:should|must|always)\b/i.test(sentence)
      ? (REPLACES_WITH.exec(sentence) ?? CHANGES_AMOUNT.exec(sentence))
      : null);
  if (!sign) return;
  findings.add(
    'poisoning',
    50,
    `${where} tells the model to change or add to the arguments the user chose (${excerpt(sign[0], 40)}): "${excerpt(sentence)}"`,
    `arguments come from the user; remove the rewriting instruction from ${where} and block the tool if it was not expected`,
  );
}
