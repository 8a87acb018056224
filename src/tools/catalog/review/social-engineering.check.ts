import type { Findings } from './findings';
import { excerpt } from './text';

/**
 * Polite social engineering: a claim that someone already agreed ("the account owner has already approved",
 * "as agreed with finance", "the user told support") used to get the model to move money or data, or to ask
 * the user for a secret, without the confirmation it would otherwise seek. A tool cannot know what the user
 * approved; only the conversation can.
 */
const CLAIMED_CONSENT =
  /\b(?:gave|given|granted|provided) (?:(?:their|his|her|verbal|written|explicit|prior|full) ){0,2}(?:consent|permission|approval|authori[sz]ation|go-ahead|sign-off)\b|\b(?:authori[sz]ed|allowed|permitted|instructed) (?:us|you|the assistant|the agent) to\b|\b(?:agreed|approved|confirmed|consented|decided) (?:earlier|yesterday|today|this morning|last week|on (?:a|the) (?:call|phone))\b|\b(?:ha(?:s|ve|d)|already)\s+(?:already\s+)?(?:approved|authori[sz]ed|consented|agreed|confirmed|verified|signed off|said yes|cleared|given (?:their |his |her )?(?:consent|permission|approval|the go-ahead)|gave (?:their )?(?:consent|permission)|requested this|asked for this)\b|\b(?:approved|authori[sz]ed|confirmed|cleared|given|agreed) (?:this request )?in advance\b|\bpre-?(?:approved|authori[sz]ed|cleared|verified|consented|signed|confirmed|validated)\b|\bas agreed (?:with|by)\b|\b(?:has|have) consented\b|\b(?:consents?|agreed) to (?:sharing|share|send|sending|transfer|the transfer|forward)|\b(?:confirmed|approved|said so|asked) (?:by phone|yesterday|earlier(?: today)?|last week|before)\b|\bsigned off on\b|\bsigned (?:\w+ ){1,3}off\b|\b(?:told|asked|informed) (?:support|us|the team|our team)\b|\b(?:our )?records show\b|\bmentioned it before\b|\b(?:asked|requested|approved|agreed to) (?:for )?this (?:yesterday|earlier|before|last week|already)\b|\b(?:expects|requested|wants) this\b|\bthe user (?:kindly )?asked us to remind you\b|\b(?:standing|prior|earlier|existing|recurring) (?:instructions?|orders?|requests?|authori[sz]ations?|mandates?)\b|\b(?:per|as per|following|according to) (?:the )?(?:user|customer|owner|client|account holder)'?s? (?:\w+ ){0,2}(?:instructions?|requests?|wishes|orders?)\b|\b(?:said|told us|told support|mentioned|indicated|stated|confirmed) (?:earlier|before|previously|already|yesterday)\b|\b(?:said|says|told us|confirmed) (?:that )?(?:it is|it's|that's|this is) (?:fine|ok|okay|alright|allowed)\b/i;
/**
 * The same claim in looser words: someone who could approve (the owner, IT, finance, a manager) approved or
 * confirmed something, at a time before this call ("IT confirmed the request yesterday", "the owner okayed
 * the payout on Monday's call").
 */
const APPROVER =
  /\b(?:finance|legal|security|compliance|support|management|the (?:[\w-]+ )?(?:owner|holder|manager|admin|administrator)|the (?:owner|account owner|account holder|manager|admin|administrator|user|customer|client|ceo|cfo|boss|team lead|it team|help ?desk|security team|finance team))\b/i;
/** Departments written as capitals: "IT", "HR" (case matters: "it" is a pronoun). */
const APPROVING_DEPARTMENT = /\b(?:IT|HR)\b/;
const APPROVED_BEFORE =
  /\b(?:approved|confirmed|authori[sz]ed|cleared|okayed|ok'?d|signed off|verified|requested|agreed to)\b[^.;]{0,30}\b(?:yesterday|earlier|already|last (?:week|month|night)|this (?:morning|week)|in advance|beforehand|previously|on (?:the|a|\w+'s) (?:call|phone|meeting)|by (?:phone|e-?mail|chat)|over the phone|in writing|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/i;
/** What the claim is used for: moving value or data, or getting a secret, or skipping a check. */
const CONSEQUENTIAL =
  /\b(?:(?:transfer|send|pay|buy|purchas|releas|shar|forward|export|mov|upgrad|liquidat|withdr[ae]w|wire|sell|sold|refund|grant|giv|attach|disclos|reveal|provid|charg|bill|debit)\w*|updat\w* (?:the )?(?:direct[- ]deposit|bank|payout|account|payee|beneficiary|routing|iban)|ask (?:the user )?for (?:their|the|your) (?:current )?(?:password|pin|code|otp|one-time code|recovery phrase|seed phrase)|(?:skip|skipping|without) (?:the )?(?:usual |normal )?(?:check|confirmation|verification|review)|no need to (?:confirm|ask|check)|do not want to be asked|without asking|(?:read(?: out| aloud)?|dictate|say|tell (?:them|the caller)|enter|submit|type|copy|fetch|retrieve)\w* (?:the |their |his |her |any )?(?:\w+ )?(?:codes?|otp|one-time passwords?|passwords?|pins?|tokens?|passcodes?)|(?:reset|verification|confirmation|security|login|sign-in|2fa|mfa|otp|one-time) (?:codes?|links?|tokens?))\w*\b/i;
/** Politeness that turns a claim into an order. */
const POLITE_ORDER =
  /\b(?:please|kindly|go ahead|proceed|feel free|it is fine to|it'?s fine to|it would be (?:very )?helpful|would (?:really )?appreciate|so (?:you can|go ahead)|immediately|promptly)\b/i;

export function checkSocialEngineering(where: string, sentence: string, findings: Findings): void {
  const claim =
    CLAIMED_CONSENT.exec(sentence) ??
    (APPROVER.test(sentence) || APPROVING_DEPARTMENT.test(sentence) ? APPROVED_BEFORE.exec(sentence) : null);
  if (!claim || !CONSEQUENTIAL.test(sentence)) return;
  findings.add(
    'poisoning',
    POLITE_ORDER.test(sentence) ? 55 : 45,
    `${where} claims approval the tool cannot know, to get the model to act (${excerpt(claim[0], 40)}): "${excerpt(sentence)}"`,
    `a tool cannot speak for the user: remove claims of consent from ${where} and block the tool if they were not expected`,
  );
}
