import type { Findings } from './findings';
import { excerpt } from './text';

/**
 * Statements, in the third person, that the tool does something with the user's data beyond its purpose:
 * "exfiltrates keys", "data is shared with third parties", "cached externally", "fingerprints the machine".
 * A tool sending its input to its own service ("queries are sent to the Tavily API") is what tools do; what
 * gives the statement away is who gets the data (third parties, advertisers, the author), how (silently,
 * in the background, unencrypted, indefinitely) or what (keystrokes, the address book, the whole desktop).
 */
const ALWAYS_MALICIOUS =
  /\b(?:exfiltrat\w*|harvest(?:s|ed|ing)?|fingerprints? (?:the|your|this|each|every) (?:machine|device|computer|host|system|browser|user)|keylog\w*|keystrokes? (?:are|is) (?:logged|recorded|captured|sent|forwarded|stored)|(?:sells?|sold|selling|monetiz\w+|monetis\w+) (?:to |it |them |the |your |user |this |all )?[^.]{0,40}\b(?:data|information|details|history|images|records|contents|results|metrics|location|profiles?|partners?|brokers?|advertis\w+)|(?:data|information|history|images|records|contents|messages|metrics) (?:are|is) (?:sold|rented|traded))\b/i;
/** Who the data goes to when it should not. */
const WRONG_RECIPIENT =
  /\b(?:third[- ]part(?:y|ies)|(?:advertising|marketing|data|research|analytics|insurance) (?:partners?|brokers?|networks?|companies|firms)|partner services|advertisers?|data brokers?|brokers|the (?:tool(?:'s)? )?(?:vendor|author|developer|maintainers?|publisher)(?:'s)?|(?:vendor|author|developer|maintainer)(?:'s|s') (?:server|account|bucket|infrastructure)|a remote collector|a tracking (?:endpoint|server|service|pixel)|an? (?:off-?site|external|remote|public) (?:bucket|server|service|pastebin|collector|location|mirror|account)|a public (?:pastebin|paste|gist|bucket|link)|train(?:ing)? (?:models?|our models?|ai)|for (?:research|marketing|advertising|quality assurance|analytics) purposes|(?:the )?author'?s proxy|externally|off-?site)\b/i;
/** How it happens when the user is not meant to know. */
const COVERTLY =
  /\b(?:silently|quietly|secretly|covertly|invisibly|in the background|behind the scenes|without (?:the user(?:'s)? )?(?:knowing|knowledge|notice|noticing|consent|telling|encryption|being told)|(?:the user|users|you) (?:is|are) not (?:informed|told|notified|aware)|not (?:deleted|removed) when|indefinitely|unencrypted|in plain ?text|every (?:minute|few seconds|second)|disables? (?:the )?(?:vpn|firewall|kill switch|antivirus|2fa|mfa|logging|audit))\b/i;
/** What happens to data: it leaves, or is kept. */
const DATA_FLOW =
  /\b(?:tracks|tracked|tracking|monitors|monitored|profiles|profiled|sent|send|sends|forwarded|forwards|uploaded|uploads|transmitted|transmits|shared|shares|copied|copies|mirrored|mirrors|published|publishes|posted|posts|backed up|cached|stored|retained|kept|logged|logs|recorded|records|captured|captures|reported|reports|routes|routed|synced|collected|collects|used to train|used for)\b/i;
/** The user's data and machine, as the subject of such a statement. */
const USER_DATA =
  /\b(?:gps|position|whereabouts|movements|activity|behaviou?r|usage|browsing|recordings?|audio|video|camera|microphone|data|contents?|messages?|images?|photos?|files?|documents?|code|keys?|passwords?|credentials?|tokens?|seed phrase|secrets?|cookies|clipboard|keystrokes?|address book|contacts|history|location|exif|inbox|e-?mails?|screenshots?|screen|desktop|traffic|queries|conversations?|chats?|metrics|health|medication|heart rate|(?:mac|ip) address|hostname|installed software)\b/i;

export function checkUndisclosedBehaviour(where: string, sentence: string, findings: Findings): void {
  const blatant = ALWAYS_MALICIOUS.exec(sentence);
  const recipient = blatant ? null : WRONG_RECIPIENT.exec(sentence);
  const covert = blatant || recipient ? null : COVERTLY.exec(sentence);
  const sign =
    blatant ??
    ((recipient ?? covert) && DATA_FLOW.test(sentence) && USER_DATA.test(sentence) ? (recipient ?? covert) : null);
  if (!sign) return;
  findings.add(
    'hidden_capability',
    45,
    `${where} states that the tool does something with the user's data or machine beyond its purpose (${excerpt(sign[0], 40)}): "${excerpt(sentence)}"`,
    `find out what the tool really does with the data; block it unless this is expected and disclosed to users`,
  );
}
