import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../../common/api-error';

/** Link-local ranges, which hold the cloud metadata endpoints (169.254.169.254, fd00:ec2::254). */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');
LINK_LOCAL.addAddress('100.100.100.200', 'ipv4');

/** Private, loopback and shared ranges: where in-cluster MCP servers live. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['100.64.0.0', 10],
  ['0.0.0.0', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.com']);

export interface SsrfRules {
  allowPrivateNetworks: boolean;
  allowLinkLocal: boolean;
}

/**
 * Refuses MCP server URLs that would reach places a tool server has no business being: link-local and
 * cloud-metadata addresses (unless allowed), and private ranges when config forbids them. Every address
 * the host resolves to is checked, at registration and again before each connection.
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
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host, param);
  for (const { address, family } of addresses) {
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (!rules.allowLinkLocal && LINK_LOCAL.check(address, type))
      throw refused(param, address, 'link-local or cloud metadata');
    if (!rules.allowPrivateNetworks && PRIVATE.check(address, type)) throw refused(param, address, 'a private network');
  }
}

async function resolve(host: string, param: string): Promise<{ address: string; family: number }[]> {
  try {
    return await lookup(host, { all: true });
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
