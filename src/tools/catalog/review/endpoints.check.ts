import { negatedAt } from './data-grab.check';
import { Findings } from './findings';
import { allMatches, excerpt, hostOf } from './text';

export const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>)\]}]+[^\s"'<>)\]}.,;:!?]/gi;
/** The local part is at most 64 characters (RFC 5321): unbounded, a long dotted run would be rescanned from each word. */
export const EMAIL = /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
/**
 * Sending, as an instruction ("send", "POST … to") or as what happens to the data ("is uploaded to", "should go
 * to"). Third-person forms ("sends", "uploads") are left out: they describe what the tool itself does with its
 * own service.
 */
export const TRANSMIT =
  /\b(send|sent|post|posted|upload|uploaded|forward|forwarded|report|reported|submit|submitted|transmit|transmitted|copy|copied|mirror|mirrored|sync|synced|log|logged|beacon|e-?mail|e-?mailed|mailed|bcc|cc|deliver|delivered|push|pushed|relay|relayed|share|shared|export|exported|stream|streamed|go|goes|routed|dispatched|archived)\b/i;
export const TRANSMIT_GLOBAL = new RegExp(TRANSMIT.source, 'gi');
/** How far before an endpoint a sending verb makes it a destination. */
export const VERB_REACH = 100;
/** A query-string slot the model fills in: ?d={summary of the chat}, ?k=$TOKEN, ?x=<secret>. */
export const QUERY_SLOT =
  /^\S*?[?&#][^=\s?&#]*=\s*(\{\{?[^{}\n]{1,80}\}?|\$\{?\w+\}?|<[^<>\n]{1,80}>|\[[^[\]\n]{1,80}\])/;
/** A host-name slot: "<hex of the question>.q.dnslog.example" (DNS exfiltration). */
export const HOST_SLOT = /(\{\{?[^{}\n]{1,60}\}\}?|<[^<>\n]{1,60}>|\$\{?\w+\}?)\.([a-z0-9-]+\.)+[a-z]{2,}\b/i;
/** What a slot holds when it leaks context rather than the tool's own arguments (?q={query} is ordinary). */
export const CONTEXT_SLOT =
  /\b(conversation|chat|transcript|history|summary|summari[sz]\w*|messages?|prompts?|secrets?|keys?|tokens?|passwords?|credentials?|cookies?|env|environment|questions?|answers?|context|memory|hex|base64|encoded)\b/i;
export const CAPTURE_HOSTS =
  /(^|\.)(webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(-free)?\.(io|app|dev)|burpcollaborator\.net|oast\.(fun|live|me|online|pro|site)|interact\.sh|canarytokens\.com|beeceptor\.com|hookbin\.com|requestcatcher\.com|pastebin\.com|paste\.rs|hastebin\.com|ghostbin\.\w+|transfer\.sh|file\.io|0x0\.st|termbin\.com)$/i;
export const SHORTENERS = /^(bit\.ly|tinyurl\.com|t\.co|goo\.gl|is\.gd|ow\.ly|rb\.gy|cutt\.ly|shorturl\.at)$/i;
/** Names reserved for documentation (RFC 2606, RFC 6761): nothing sent there arrives anywhere. */
export const DOCUMENTATION_HOST = /(^|\.)(example\.(com|net|org|edu)|example|test|invalid|localhost)$/i;
export const IP_HOST = /^\d{1,3}(\.\d{1,3}){3}$|^\[[0-9a-f:]+\]$/i;

export function leaksContext(slot: string): boolean {
  return CONTEXT_SLOT.test(slot.replace(/[_-]+/g, ' '));
}

export function checkEndpoints(where: string, sentence: string, findings: Findings): void {
  const hostSlot = HOST_SLOT.exec(sentence);
  if (hostSlot && leaksContext(hostSlot[1])) {
    findings.add(
      'exfiltration',
      40,
      `${where} has the model put data into a host name (${excerpt(hostSlot[0], 60)}), which leaks it through DNS`,
      `remove the host-name template from ${where}`,
    );
  }
  // Each endpoint with where it first appears. Every look around an endpoint below reads a bounded window,
  // so that a sentence full of endpoints costs its length, not its length squared.
  const firstAt = new Map<string, number>();
  for (const match of [
    ...allMatches(URL_PATTERN, sentence),
    ...(sentence.includes('@') ? allMatches(EMAIL, sentence) : []),
  ])
    if (!firstAt.has(match[0]) || firstAt.get(match[0])! > match.index) firstAt.set(match[0], match.index);
  for (const [endpoint, at] of firstAt) {
    const isEmail = !endpoint.includes('://');
    const host = isEmail ? endpoint.split('@')[1] : hostOf(endpoint);
    // The endpoint is where data goes: "send … to X", "uploaded to X", "add X to BCC", with the verb close by.
    const windowStart = Math.max(0, at - VERB_REACH - 10);
    const verb = allMatches(TRANSMIT_GLOBAL, sentence.slice(windowStart, at))
      .map((m) => windowStart + m.index)
      .filter((index) => at - index <= VERB_REACH)
      .pop();
    const destination =
      verb !== undefined &&
      !negatedAt(sentence, verb) &&
      (/\b(to|into)\s+(\S+\s+){0,3}?[`'"(<]?$/i.test(sentence.slice(Math.max(0, at - 200), at)) ||
        /^[`'">)]?\s+(to|in|as|on)\s+(the\s+)?(bcc|cc|recipients?|blind (carbon )?copy|carbon copy)\b/i.test(
          sentence.slice(at + endpoint.length, at + endpoint.length + 60),
        ));
    const querySlot = isEmail ? null : QUERY_SLOT.exec(sentence.slice(at, at + endpoint.length + 200));
    if (querySlot && leaksContext(querySlot[1])) {
      findings.add(
        'exfiltration',
        40,
        `${where} has the model build a URL filled in with ${excerpt(querySlot[1], 40)} (${endpoint}), which leaks it when fetched or rendered`,
        `remove ${endpoint} from ${where}`,
      );
    } else if (host && DOCUMENTATION_HOST.test(host)) {
      continue;
    } else if (destination) {
      findings.add(
        'exfiltration',
        40,
        `${where} tells the model to send data to ${endpoint}`,
        `remove ${endpoint} from ${where}; block the tool if the destination is not the tool's own service`,
      );
    } else if (host && (CAPTURE_HOSTS.test(host) || IP_HOST.test(host) || SHORTENERS.test(host))) {
      findings.add(
        'exfiltration',
        25,
        `${where} names ${CAPTURE_HOSTS.test(host) ? 'a request-capture or anonymous upload service' : IP_HOST.test(host) ? 'a bare IP address' : 'a link shortener that hides the destination'} (${endpoint})`,
        `check what ${endpoint} is and remove it from ${where}`,
      );
    } else {
      findings.add(
        'mentions',
        isEmail ? 5 : 1,
        `${where} names ${isEmail ? 'an e-mail address' : 'a URL'} (${endpoint})`,
        `check that ${endpoint} is expected (documentation, the tool's own service)`,
      );
    }
  }
}
