import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { ApiError } from '../../common/api-error';

/** Cloud metadata endpoints outside 169.254.0.0/16: AWS over IPv6 and Alibaba Cloud. */
const METADATA_ADDRESSES = [ipaddr.parse('fd00:ec2::254'), ipaddr.parse('100.100.100.200')].map(String);
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.com']);
/** IPv6 ranges that reach the Internet; every other IPv6 range is local, special or reserved. */
const PUBLIC_IPV6 = new Set(['unicast', 'teredo', '6to4', 'amt', 'as112v6', 'orchid2']);

/**
 * `public`, `private` (loopback, RFC 1918, unique local, unspecified, carrier-grade NAT, multicast,
 * reserved: anything an outside service has no business reaching) or `link_local` (which holds the cloud
 * metadata endpoints). IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, translated
 * ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are classified by that
 * IPv4 address, since they reach it. Text that is no IP address is `private`: refused unless allowed.
 */
export type AddressClass = 'public' | 'private' | 'link_local';

export function classifyAddress(text: string): AddressClass {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'private';
  const address = ipaddr.parse(bare);
  if (METADATA_ADDRESSES.includes(address.toString())) return 'link_local';
  if (address.kind() === 'ipv4') return classifyIpv4(address as ipaddr.IPv4);
  const ipv6 = address as ipaddr.IPv6;
  const embedded = embeddedIpv4(ipv6);
  if (embedded) return classifyIpv4(embedded);
  const range = ipv6.range();
  if (range === 'linkLocal') return 'link_local';
  return PUBLIC_IPV6.has(range) ? 'public' : 'private';
}

function classifyIpv4(address: ipaddr.IPv4): AddressClass {
  if (METADATA_ADDRESSES.includes(address.toString())) return 'link_local';
  const range = address.range();
  if (range === 'linkLocal') return 'link_local';
  return range === 'unicast' ? 'public' : 'private';
}

/** The IPv4 address an IPv6 address stands for, when it is one of the IPv4-carrying forms. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return fromWords(parts[6], parts[7]);
  // NAT64 well-known prefix (64:ff9b::/96); the local-use 64:ff9b:1::/48 is classified as private by its range.
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0)) {
    return fromWords(parts[6], parts[7]);
  }
  if (range === '6to4') return fromWords(parts[1], parts[2]);
  // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks); :: and ::1 are not among them.
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7] > 1)) {
    return fromWords(parts[6], parts[7]);
  }
  return undefined;
}

export interface SsrfRules {
  allowPrivateNetworks: boolean;
  allowLinkLocal: boolean;
}

/** Why the rules refuse an address, or undefined when they allow it. */
export function refusalOf(address: string, rules: SsrfRules): string | undefined {
  const type = classifyAddress(address);
  if (type === 'link_local' && !rules.allowLinkLocal) return 'link-local or cloud metadata';
  if (type === 'private' && !rules.allowPrivateNetworks) return 'a private network';
  return undefined;
}

/**
 * Refuses MCP server URLs that would reach places a tool server has no business being: link-local and
 * cloud-metadata addresses (unless allowed), and private ranges when config forbids them. Every address
 * the host resolves to is checked at registration and before each connection; the connection itself is
 * checked again against the address it really reached (see ssrf-guarded-fetch.ts), so a host that resolves
 * differently the second time (DNS rebinding) gains nothing.
 */
export async function assertUrlAllowed(url: string, rules: SsrfRules, param = 'url'): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw ApiError.invalid(`${param} is not a valid URL`, param, 'invalid_url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw ApiError.invalid(`${param} must use http or https`, param, 'invalid_url');
  }
  if (parsed.username || parsed.password) {
    throw ApiError.invalid(`${param} must not carry credentials; use auth.secret_ref`, param, 'invalid_url');
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (METADATA_HOSTS.has(host) && !rules.allowLinkLocal) throw refused(param, host, 'a cloud metadata endpoint');
  const addresses = isIP(host) ? [host] : await resolve(host, param);
  for (const address of addresses) {
    const refusal = refusalOf(address, rules);
    if (refusal) throw refused(param, address, refusal);
  }
}

async function resolve(host: string, param: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw ApiError.invalid(`${param}: the host '${host}' cannot be resolved`, param, 'unresolvable_host');
  }
}

function refused(param: string, address: string, what: string): ApiError {
  return ApiError.invalid(
    `${param} points at ${address}, ${what}; refused by the SSRF policy (mcp.allow_link_local / mcp.allow_private_networks)`,
    param,
    'ssrf_refused',
  );
}
