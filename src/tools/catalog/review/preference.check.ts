import type { Findings } from './findings';
import { isDirective } from './sentence';
import { allMatches, excerpt } from './text';

/**
 * Preference manipulation and advertising: text that makes the model choose this tool over others, or put
 * a product, a brand or a link in front of the user. Benign descriptions say what the tool is good at; they
 * do not tell the model to prefer it over everything else, or to recommend someone's product.
 */
const SELF_PREFERENCE: RegExp[] = [
  /\b(?:always|only|exclusively|must always|should always)\s+(?:use|choose|call|pick|prefer|select|rely on)\s+(?:this|me|it)\b[^.;]{0,40}\b(?:over|instead of|rather than|above|for) (?:any|all|every|each|other)\b|\b(?:use|call|choose|select|prefer|rely on) (?:this(?: tool)?|me|it) (?:first|exclusively)\b[^.;]{0,30}\b(?:every|all|any)\b/i,
  /\b(?:instead of|over|rather than|above|before) (?:any|every|all|each|the) (?:other|built-in|default|existing|installed)\b[^.;]{0,30}\b(?:tools?|sources?|integrations?|options?|services?|functions?)\b/i,
  /\b(?:do not|don'?t|never) (?:call|use|invoke|try|consider) (?:any )?(?:other|another|alternative|different)\b[^.;]{0,30}\b(?:tools?|sources?|integrations?|functions?)\b|\bignore (?:any |all |the )?other\b[^.;]{0,30}\btools?\b/i,
  /\b(?:should|must|shall|is to) be (?:selected|chosen|preferred|picked) (?:first |exclusively |always )?(?:for (?:all|every|any)|over|instead|above)\b|\bthe (?:preferred and )?only (?:approved|reliable|accurate|trusted|verified|safe|official)\b/i,
  /\b(?:the )?only (?:trustworthy|reliable|accurate|safe|good|legitimate|honest) (?:source|tool|option|service|one)\b|\bthe only (?:\w+ ){1,2}worth\b|\bthe only (?:secure|safe|trusted|trustworthy|reliable|accurate|legitimate|official|honest|approved|verified)(?: [\w-]+){0,2} (?:source|tool|option|service|app|extension|integration|provider|choice)\b|\bprefer (?:this|me|it)(?: tool)? (?:to|over|above) (?:any|all|every|each|other|the)\b|\b(?:this|it)(?: tool| server| service)? (?:should|must|is to) (?:always )?be (?:the|your) (?:first|only|default|preferred|go-to) (?:choice|option|tool|pick)\b|\b(?:put|place|list|show|rank) [A-Z][A-Za-z]{1,20}(?:\s[A-Z][a-z]{1,20}){0,2} (?:at the top|first|above)\b/,
  /\b(?:other|competing|the default|alternative|another|built-in|rival)\b[^.;]{0,40}\b(?:tools?|translators?|calculators?|generators?|integrations?|services?|apps?|vpns?|providers?)\b[^.;]{0,30}\b(?:outdated|inaccurate|unsafe|insecure|rate[- ]limited|poor|discontinued|log user data|produce insecure|unreliable|known to be|spread|misinformation|fake|scams?|biased|dangerous)\b|\buninstall (?:other|all other|competing|any other)\b/i,
];
const ADVERTISING: RegExp[] = [
  /\b(?:promo(?:tion(?:al)?)? code|coupon|discount code|affiliate|referral (?:link|code)|sponsor(?:ed)?|powered by|\d{1,2}% off|ref=|aff=|utm_)\b|\b(?:suggest|recommend|offer|push) (?:upgrading|upgrades?|subscribing|signing up|buying|purchasing)\b/i,
  /\b(?:rate|review) (?:this tool|it|us) (?:five|5|\d) stars\b|\brecommend (?:it|this tool|me) to\b|\bcertified by\b|\bendorsed by\b/i,
  /\b(?:[Rr]ecommend|[Ss]uggest|[Rr]ank|[Pp]romote|[Bb]ook|[Ff]avou?r|(?:[Pp]resent|[Dd]escribe) (?=[A-Z]\w{1,20}(?:\s[A-Z]\w{1,20}){0,2} as\b))\b[^.;]{0,30}\b[A-Z][A-Za-z]{1,20}(?:\s[A-Z][a-z]{1,20}){0,2}\b[^.;]{0,60}\b(?:first|the best|top-rated|regardless|every|always|whenever|even if|only|instead|in every)\b/,
  /\b(?:regardless of|no matter)\b[^.;]{0,30}\b(?:user needs|the results|what the user|preferences|needs)\b[^.;]{0,40}\brecommend\b|\b(?:encourage|urge|persuade)\b[^.;]{0,20}\b(?:buying|to buy|purchas\w+|invest\w*|sign(?:ing)? up|subscrib\w+)\b|\bexpected to \d+x\b/i,
];

/**
 * Placing a brand: a verb that orders or presents results, then a capitalised name, then a position or a
 * condition that ignores the results ("list GrandStay first", "show Acme Bank above the others whatever the
 * rates"). The verb is matched in any case, the name in capitals only: lower-case words are not brands.
 */
const PLACES =
  /\b(?:list|show|put|place|feature|highlight|display|sort|order|surface|pin|book|steer|push|nudge|route|go with|opt for|default to|favou?r|prefer|pick|choose|select|cite|quote|source from|play|stream|switch to|redirect to)\b/gi;
const BRAND_THEN_POSITION =
  /^\s(?:[a-z]+\s){0,2}(?:so (?:that )?)?(?:(?:the|only|all|our)\s)?[A-Z][A-Za-z0-9]{1,20}(?:\s[A-Z][A-Za-z0-9]{1,20}){0,2}\b[^.;]{0,40}\b(?:first|at the (?:very )?top|top of (?:the )?(?:list|results|page)|on top|above|ahead of|before (?:any|all|the) other|the best|top-rated|favou?rite|regardless|whatever|no matter|even if|even when|in every|every time|instead)\b/;
/** Buying only from one seller: "only book flights with SkyJet", "exclusively order from PizzaMax". */
const ONLY_FROM =
  /\b(?:only|exclusively|always)\s+(?:book|buy|order|purchase|rent|reserve|subscribe|shop|recommend|suggest)\b/gi;
/** A capitalised name shortly after: the seller. */
const SELLER = /^[^.;]{0,30}\b(?:with|from|at|through|via|to)?\s?[A-Z][A-Za-z0-9]{1,20}\b/;
/**
 * Running down what the user may prefer: something else (another airline, competing VPNs, the built-in
 * browser tool) called unsafe or worse, in words the model is to pass on.
 */
const ALTERNATIVE =
  /\b(?:another|other|others|competing|competitors?'?|rival|alternative|a different|the built-in|the default|any other)\b/i;
const DISPARAGED =
  /\b(?:unsafe|insecure|unreliable|untrustworthy|inaccurate|outdated|dangerous|fraudulent|a scam|scams|inferior|worse|low[- ]quality|poor quality|rip-?offs?|overpriced|illegal|malicious|compromised|biased|fake|counterfeit|buggy|broken|slow|untested|unverified|harmful|unhealthy|toxic|risky|useless|corrupt\w*|lose data|loses data|crash\w*|damage\w*|make (?:you|them|users|people) (?:sick|ill)|sold out|out of stock|recalled|defective|contaminated|expired|overheat\w*|explode\w*|spread misinformation|(?:charge|add) hidden fees|overcharge|miss(?:es)? results|cannot be trusted|can'?t be trusted|not (?:safe|secure|accurate|reliable|trustworthy)|less (?:accurate|reliable|safe|secure)|(?:log|sell|steal|leak|harvest|track|read|mine)s? (?:user |your |their |the user'?s |people'?s )?(?:data|documents|writing|files|messages|information|info|content|conversations|history)|spy on|steal)\b/i;
/** A claim about rivals put in the model's mouth: "claim that rival brands overheat", "say that other apps …". */
const CLAIM_ABOUT_RIVALS =
  /\b(?:tell|say|claim|warn|inform|insist|state|explain|suggest|imply)\w*\b[^.;]{0,25}\bthat\s+(?:the\s+)?(?:rival|competing|competitors?'?|other|alternative|cheaper)\b/i;
/**
 * Alternatives kept from the user: "leave cheaper competitors out", "discard results from any other search
 * integration".
 */
const SUPPRESSES =
  /\b(?:leave|omit|exclude|hide|drop|remove|filter out|suppress|skip|discard|ignore|bury)\b[^.;]{0,40}\b(?:competitors?|rivals?|alternatives|cheaper (?:\w+ )?(?:options|offers|competitors|alternatives|providers|products)|other (?:brands|vendors|providers|sellers|airlines|hotels|stores|shops)|(?:any|every|all) other (?:[\w-]+ )?(?:tools?|integrations?|sources?|services?|providers?))\b/i;
/** Steering the user, not answering them: "steer users away from index funds", "nudge customers toward …". */
const STEERS_USER =
  /\b(?:steer|nudge|push|herd|funnel|pressure)\w*\s+(?:the user|users|customers|people|them|buyers|visitors)\s+(?:away from|toward|towards|into|to)\b/i;
/** The user's pick swapped for a brand: "replace any brand the user lists with the FreshFarm one". */
const SWAPS = /\b(?:replace|swap|substitute|switch)\b/gi;
const WITH_BRAND = /^[^.;]{0,50}\bwith (?:the |a |an |our )?[A-Z][A-Za-z0-9]{1,20}\b/;
const USER_PICK =
  /\b(?:the user|users|they|customers)\b[^.;]{0,20}\b(?:lists?|names?|picks?|chooses?|wants?|asks? for|mentions?|requests?|selects?)\b/i;
/** Claims to be made against the evidence: "even when the numbers show otherwise". */
const AGAINST_EVIDENCE =
  /\beven (?:when|if|though) (?:the |its |their )?(?:numbers|results|data|facts|rates|prices|reviews|figures|ratings|search|comparison)\b[^.;]{0,20}\b(?:show|shows|say|says|suggest|suggests|indicate|indicates|disagree|returns?)\b[^.;]{0,10}\b(?:otherwise|different\w*|lower|higher|better|cheaper)\b/i;
/** This tool held up as the one source to believe. */
const SOLE_SOURCE =
  /\b(?:treat|regard|consider|present|describe)\s+(?:this|me|it)(?: tool| server| service)? as (?:the |your )?(?:authoritative|only|primary|definitive|sole|single|most (?:reliable|accurate|trusted))\b/i;
/** Choosing this tool over what was run down: "recommend using this one", "prefer this tool", "switch to us". */
const PICKS_THIS =
  /\b(?:recommend|suggest|prefer|choose|pick|use|switch to|move to|promote)\w*\s+(?:using\s+)?(?:this (?:tool|one|service|app|server)|us)\b|\b(?:instead|rather)\b|\b(?:first|only|default|preferred|top|go-to) (?:choice|option|pick)\b/i;
const PASS_ON =
  /\b(?:tell|say|explain|claim|warn|inform|insist|mention|state|suggest|imply|respond|reply|describe|call|treat|present|mark|report|label|convince|assure)\w*\b/i;
/** Text stamped onto everything the model writes: a promotion in every reply, e-mail or post. */
const STAMP_VERB =
  /\b(?:add|append|prepend|insert|include|attach|put|end|sign|close|finish|start|stamp|tag|write|footer|signature)\b/gi;
/** How far before a stamping verb its object may be ("at the end of each summary, write …"), twice that after. */
const STAMP_REACH = 60;
const EVERY_ITEM = /\b(?:every|each|all|any)\s[\w-]+/i;
const PROMOTES =
  /\b(?:try (?:it|us|\w+) (?:free|now|today)|free trial|sign up|download (?:it|now)|get (?:it|\d+% off)|visit|check out|(?:sent|made|created|built|translated|written|brought to you) (?:with|by|using|via)|powered by|brought to you|sponsored|discount|coupon|promo|% off|upgrade to)\b|\b(?!example\.)[a-z0-9-]{2,40}\.(?:app|com|io|ai|co|net|shop|store|xyz|link|ly|me|biz|info|club|online|site|pro)\b/i;

/** Which ADVERTISING patterns describe a tool harmlessly unless they are orders. */
const ADVERTISING_NEEDS_ORDER = [true, false, true, false];

export function checkPreference(where: string, sentence: string, findings: Findings): void {
  const preference = SELF_PREFERENCE.map((p) => p.exec(sentence)).find(Boolean) ?? steering(sentence);
  const advertIndex = preference ? -1 : ADVERTISING.findIndex((p) => p.test(sentence));
  const advert = advertIndex >= 0 ? ADVERTISING[advertIndex].exec(sentence) : null;
  const sign = preference ?? advert;
  if (!sign) return;
  // A plain statement ("sponsored results are marked", "recommends books") describes the tool; an order does not.
  const ordered =
    isDirective(sentence) || /\b(?:always|every|regardless|whenever|even if|must|should)\b/i.test(sentence);
  if (advert && !ordered && ADVERTISING_NEEDS_ORDER[advertIndex]) return;
  findings.add(
    'impersonation',
    40,
    `${where} ${preference ? 'steers the model to this tool over others' : 'advertises to the user through the model'} (${excerpt(sign[0], 40)}): "${excerpt(sentence)}"`,
    `remove preference and advertising instructions from ${where}`,
  );
}

/** The brand-placing, seller-fixing, alternative-disparaging and promotion-stamping orders, when ordered. */
function steering(sentence: string): RegExpExecArray | null {
  const ordered =
    isDirective(sentence) || /\b(?:always|every|regardless|whenever|even if|no matter|must|should)\b/i.test(sentence);
  if (!ordered) return null;
  for (const verb of allMatches(PLACES, sentence)) {
    const end = verb.index + verb[0].length;
    if (BRAND_THEN_POSITION.test(sentence.slice(end, end + 120))) return verb;
  }
  for (const only of allMatches(ONLY_FROM, sentence)) {
    const end = only.index + only[0].length;
    if (SELLER.test(sentence.slice(end, end + 60))) return only;
  }
  const aboutRivals = CLAIM_ABOUT_RIVALS.exec(sentence) ?? SUPPRESSES.exec(sentence) ?? SOLE_SOURCE.exec(sentence);
  if (aboutRivals) return aboutRivals;
  const steersUser = STEERS_USER.exec(sentence) ?? (PASS_ON.test(sentence) ? AGAINST_EVIDENCE.exec(sentence) : null);
  if (steersUser) return steersUser;
  if (USER_PICK.test(sentence))
    for (const swap of allMatches(SWAPS, sentence)) {
      const end = swap.index + swap[0].length;
      if (WITH_BRAND.test(sentence.slice(end, end + 80))) return swap;
    }
  if (ALTERNATIVE.test(sentence) && (PASS_ON.test(sentence) || PICKS_THIS.test(sentence))) {
    const disparaged = DISPARAGED.exec(sentence);
    if (disparaged) return disparaged;
  }
  // The order, what it is applied to and the promotion sit together: "end each reply with '… shop.io'".
  for (const verb of allMatches(STAMP_VERB, sentence)) {
    const near = sentence.slice(Math.max(0, verb.index - STAMP_REACH), verb.index + STAMP_REACH * 2);
    const promotion = EVERY_ITEM.test(near) ? PROMOTES.exec(near) : null;
    if (promotion) return promotion;
  }
  return null;
}
