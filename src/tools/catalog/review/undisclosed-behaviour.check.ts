import type { Findings } from './findings';
import { excerpt } from './text';

/**
 * Statements, in the third person, that the tool does something with the user's data beyond its purpose:
 * "exfiltrates keys", "data is shared with third parties", "cached externally", "fingerprints the machine".
 * A tool sending its input to its own service ("queries are sent to the Tavily API") is what tools do; what
 * gives the statement away is who gets the data (third parties, advertisers, the author), how (silently,
 * in the background, unencrypted, indefinitely) or what (keystrokes, the address book, the whole desktop).
 *
 * Each of those is a class of words, not a phrase: a sentence is flagged when it has a verb of data leaving
 * or being kept (active, passive or as a noun: "forwards", "are retained", "a copy is kept") together with a
 * wrong recipient or a covert manner, and the user's data as its object; or a wrong recipient and a covert
 * manner together, whatever the object.
 */
const ALWAYS_MALICIOUS =
  /\b(?:exfiltrat\w*|harvest(?:s|ed|ing)?|reverse (?:tunnel|shell)|backdoor\w*|(?:vendor|author|developer|maintainer|attacker)s? (?:can|could|may) (?:reach|access|control|enter) (?:your|the user'?s|their) (?:network|machine|computer|device|system|files)|fingerprints? (?:the|your|this|each|every) (?:machine|device|computer|host|system|browser|user)|keylog\w*|keystrokes? (?:are|is) (?:logged|recorded|captured|sent|forwarded|stored)|(?:sells?|sold|selling|monetiz\w+|monetis\w+) (?:to |it |them |the |your |user |this |all )?[^.]{0,40}\b(?:data|information|details|history|images|records|contents|results|metrics|location|profiles?|partners?|brokers?|advertis\w+)|(?:data|information|history|images|records|contents|messages|metrics) (?:are|is) (?:sold|rented|traded)|(?:installs?|install(?:ed|ing)|adds|enables|deploys|drops) (?:an? |the |its (?:own )?)?(?:hidden |invisible |silent )?(?:tracking|tracker|spyware|keylogger|backdoor|monitoring|surveillance|beacon|telemetry) (?:extension|plugin|plug-in|add-on|agent|script|pixel|service|daemon|software|app|module|cookie|profile|certificate))\b/i;
/** Who the data goes to when it should not: parties other than the user and the service the tool fronts. */
const WRONG_RECIPIENT =
  /\b(?:third[- ]part(?:y|ies)(?![- ](?:apis?|services?|integrations?|librar\w+|apps?|tools?|providers?|plugins?|packages?|sdks?|logins?|sign-ins?)\b)|(?:advertising|marketing|data|research|analytics|insurance|business|commercial|affiliate) (?:partners?|brokers?|networks?|companies|firms|vendors?)|partner (?:services|companies|firms|insurers|banks|lenders|agencies|networks|advertisers|sites|brands|retailers)|(?:our|its) partners|partners? (?:who|that) (?:buy|pay)|advertisers?|marketers?|sponsors?|affiliates?|insurers?|insurance companies|recruiters?|employers?|lenders?|landlords?|debt collectors?|data brokers?|brokers?|(?:an?|our|its|their|some) (?:[\w-]+ ){0,2}(?:partners?|compan(?:y|ies)|firms?|agenc(?:y|ies)|resellers?|buyers?|retailers?)|[\w-]{1,30} (?:companies|firms|agencies|resellers|buyers)|targeted (?:offers|ads|advertising|marketing|promotions)|contractors|(?:human|outside|external) reviewers|(?:servers?|hosts?|storage) (?:in|abroad|overseas) (?:another|a foreign|other) (?:country|countries|jurisdictions?)|(?:another|a foreign) (?:country|jurisdiction)|overseas|outside (?:parties|organi[sz]ations|companies)|ad (?:networks?|exchanges?|partners?|servers?|platforms?)|(?:marketing|sales|growth|advertising) (?:team|department|list)s?|(?:for|in) (?:cold )?(?:outreach|lead generation|resale|targeting|upselling)|(?:improve|train|fine-tune|tune) (?:our|their|its|the vendor's) (?:\w+ )?(?:models?|ai|algorithms?)|the (?:tool(?:'s)? )?(?:vendor|author|developers?|maintainers?|publisher|creators?)(?:'s|s')?(?!'s|s'| own\b)|(?:vendor|author|developer|maintainer)(?:'s|s') (?:server|account|bucket|infrastructure)|(?:server|bucket|account|database|archive|endpoint)s? (?:the|its) (?:developers?|authors?|vendors?|maintainers?) (?:own|owns|control|controls|run|runs|operate)|a remote collector|(?:an?|the) (?:[\w-]+ )?(?:ingestion|collection|collector|telemetry|tracking) (?:endpoint|server|service|url|host)|(?:staff|employees) (?:at|of) the (?:company|vendor|developer|publisher)|(?:company|vendor) (?:staff|employees)|a tracking (?:endpoint|server|service|pixel)|an? (?:off-?site|external|remote|public|undisclosed|unknown|unnamed|foreign|private|personal) (?:[\w-]+ )?(?:bucket|server|service|pastebin|collector|location|mirror|account|archive|database|endpoint|host|address|storage)|a public (?:[\w-]+ )?(?:pastebin|paste|gist|bucket|link|webhook|channel|repo|repository|page|folder|drive)|train(?:ing)? (?:models?|our models?|ai)|(?:advertising|marketing|ad|targeting|behaviou?ral) (?:profiles?|purposes|targeting|campaigns|segments)|for (?:research|marketing|advertising|quality assurance|analytics|profiling|resale) purposes|(?:the )?author'?s proxy|externally|off-?(?:site|device|machine)|(?:the )?(?:manufacturer|provider|vendor|company)'s (?:support )?(?:staff|employees|team)|support staff|credit bureaus?|bureaus)\b/i;
/** How it happens when the user is not meant to know. */
const COVERTLY =
  /\b(?:silently|quietly|secretly|covertly|invisibly|surreptitiously|stealthily|discreetly|in the background|behind the scenes|(?:a |an )?(?:hidden|secret|undisclosed|invisible|shadow) (?:log|copy|copies|record|records|list|file|profile|archive|channel|request|upload|backup|account)|without (?:(?:the|their|his|her|your|any) )?(?:\w+(?:'s|s')? )?(?:knowing|knowledge|notice|noticing|consent|permission|approval|telling|encryption|being told|notif(?:y|ying|ication)|informing|asking|disclos\w+)|(?:the user|users|you|they|customers|candidates|residents|patients|employees) (?:is|are) (?:not|never) (?:informed|told|notified|aware|asked)|(?:is|are) (?:not|never) (?:disclosed|mentioned|shown|revealed)|not (?:deleted|removed) when|(?:even )?after (?:you |the user )?(?:uninstall|delet|opt|the session|logout|logging out)\w*|world-readable|stays? (?:on|active|running) after|indefinitely|forever|as advertised|despite (?:the |its )?(?:claims|privacy policy|promises)|for (?:\d+|several|many|multiple) years|for years|permanently retained|unencrypted|in plain ?text|every (?:minute|few seconds|second)|disables? (?:the )?(?:vpn|firewall|kill switch|antivirus|2fa|mfa|logging|audit))\b/i;
/** What happens to data: it leaves, or is kept; verbs in any voice and their nouns. */
const DATA_FLOW =
  /\b(?:track|monitor|profil|send|sent|forward|upload|transmit|shar|cop(?:y|ie)|a copy|mirror|publish|post|back(?:s|ed)? up|cach|stor|retain|keep|kept|log|a log|record|captur|report|rout|relay|sync|collect|harvest|leak|disclos|pass(?:es|ed)? (?:on|along)|hand(?:s|ed)? (?:over|to)|sold|sell|licens|provid|suppl|stream|pip(?:e|ed|es|ing) (?:to|into)|export|expos|writ|written|remain|persist|transfer|deliver|beacon|phones? home|receiv|review(?:ed)? by|read by|made available|(?:viewable|visible|accessible|readable|available) (?:by|to)|matched against|used (?:to|for|by|in)|end(?:s)? up (?:in|on|with)|escrow|deposit|index(?:ed|es)? by|analy[sz]ed by|mined by|processed by|can (?:read|see|view|access|listen to)|pool|aggregat|compil|(?:can|may|will) (?:buy|purchase|license|access)|stays? (?:on|in|with)|held (?:by|on|at)|archiv|sav(?:e|ed|es) (?:to|on|in)|transcrib)\w*/i;
/** The user's data, person and machine, as the object of such a statement. */
const USER_DATA =
  /\b(?:gps|position|whereabouts|movements|activity|behaviou?r|usage|browsing|recordings?|audio|video|camera|microphone|data|contents?|messages?|images?|photos?|files?|documents?|notes?|code|keys?|passwords?|credentials?|tokens?|seed phrase|secrets?|cookies|clipboard|keystrokes?|address book|contacts|history|location|exif|inbox|e-?mails?|screenshots?|screen|desktop|traffic|queries|prompts?|conversations?|chats?|transcripts?|metrics|health|medication|heart rate|(?:mac|ip) address|hostname|installed (?:software|applications|apps|programs|extensions)|(?:device|hardware|advertising) (?:identifiers|ids?)|identifiers|serial numbers?|imei|face data|faces|biometrics?|everything (?:you |the user |users )?(?:type|typed|types|say|said|enter|entered|view|viewed|do)|workouts?|sleep|patterns|fingerprints|readings|salar(?:y|ies)|mailbox|snapshots?|open windows|(?:entry|exit|arrival|departure|login|wake|sleep) times|comings and goings|presence|occupancy|voice|clips|symptoms|diagnos\w+|medical|prescriptions?|datasets?|(?:social security|ssn|passport|national id|tax id|card) numbers|ssns?|(?:one-time |verification |security |2fa |sms |login )?(?:codes|otps?)|sms|texts|client names|names|amounts|scans|(?:personal|private|sensitive) \w+|details|information|info|profiles?|identit(?:y|ies)|pages?|sites?|websites?|urls?|visits?|searches|purchases|transactions|calendar|events?|schedules?|(?:when|where) (?:\w+ ){0,2}(?:is|are) (?:home|away|out)|residents|occupants|attendees|candidates|patients|employees|children|resumes?|cvs?)\b/i;

/** A destination the user owns. */
const USERS_OWN = /\b(?:to|into|in|with) (?:your|the user'?s|their|the caller'?s) (?:own )?[\w-]+/i;
/** How far from the recipient or manner the verb and the data may be. */
const NEAR = 120;

export function checkUndisclosedBehaviour(where: string, sentence: string, findings: Findings): void {
  const blatant = ALWAYS_MALICIOUS.exec(sentence);
  const recipient = blatant ? null : WRONG_RECIPIENT.exec(sentence);
  const covert = blatant ? null : COVERTLY.exec(sentence);
  const anchor = recipient ?? covert;
  let sign = blatant;
  if (!sign && anchor) {
    // The parts of one statement sit close together: a long list or table row read as one sentence does not
    // make "third-party" in one cell and "published" in another a statement.
    const near = sentence.slice(Math.max(0, anchor.index - NEAR), anchor.index + anchor[0].length + NEAR);
    // A wrong recipient and a covert manner together need no data word: "shares it with partner insurers secretly".
    // Doing it quietly is how syncing works when the data goes to the user's own account ("every minute to
    // your Dropbox"); it is the user who chose that destination.
    const usersOwn = !recipient && USERS_OWN.test(near);
    if (!usersOwn && DATA_FLOW.test(near) && ((recipient && covert) || USER_DATA.test(near))) sign = anchor;
  }
  if (!sign) return;
  findings.add(
    'hidden_capability',
    45,
    `${where} states that the tool does something with the user's data or machine beyond its purpose (${excerpt(sign[0], 40)}): "${excerpt(sentence)}"`,
    `find out what the tool really does with the data; block it unless this is expected and disclosed to users`,
  );
}
