import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text; 24 characters carry about 143 bits. */
export function randomToken(length = 24): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    // 248 is the largest multiple of 62 below 256: rejecting the rest keeps every character equally likely.
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out.length === length ? out : out + randomToken(length - out.length);
}

export type IdPrefix =
  | 'tool_'
  | 'bundle_'
  | 'audit_'
  | 'mcpsrc_'
  | 'vs_'
  | 'file-'
  | 'vsfb_'
  | 'call_'
  | 'pol_'
  | 'key_'
  | 'review_'
  // Responses and their items (/v1/responses), as OpenAI prefixes them.
  | 'resp_'
  | 'msg_'
  | 'fc_'
  | 'fco_'
  | 'fs_'
  | 'ws_'
  | 'ci_'
  | 'cntr_'
  | 'mcp_';

export function newId(prefix: IdPrefix): string {
  return prefix + randomToken(24);
}
