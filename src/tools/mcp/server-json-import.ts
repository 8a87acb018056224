import { ApiError } from '../../common/api-error';
import type { CreateMcpSourceDto } from './mcp-sources.dto';

const MAX_REMOTES = 16;
const MAX_URL = 2048;
/** The registry's name rule: reverse-DNS namespace, a slash, a name. */
const SERVER_NAME = /^[a-zA-Z0-9.-]{1,100}\/[a-zA-Z0-9._-]{1,100}$/;
const TRANSPORTS = { 'streamable-http': 'streamable_http', sse: 'sse' } as const;

/**
 * Turns a server.json document (the MCP Registry's format) into source registrations: each remote
 * (`streamable-http` or `sse`) becomes one source. Package entries would mean running a local process,
 * which only the config file may do, so a document offering nothing else is refused with that reason.
 * Everything is checked before anything is created, so a bad document changes nothing.
 */
export function sourcesFromServerJson(document: unknown): CreateMcpSourceDto[] {
  if (!isObject(document)) throw ApiError.invalid('The body must be a server.json object', null);
  const name = document.name;
  if (typeof name !== 'string' || !SERVER_NAME.test(name))
    throw ApiError.invalid('name must be a reverse-DNS server name such as "io.example/weather"', 'name');
  const remotes = document.remotes ?? [];
  if (!Array.isArray(remotes)) throw ApiError.invalid('remotes must be an array', 'remotes');
  if (remotes.length > MAX_REMOTES)
    throw ApiError.invalid(`remotes may list at most ${MAX_REMOTES} entries`, 'remotes');
  const packages = document.packages ?? [];
  if (!Array.isArray(packages)) throw ApiError.invalid('packages must be an array', 'packages');
  if (remotes.length === 0) {
    throw packages.length > 0
      ? ApiError.invalid(
          'This server.json offers only packages (local stdio processes); stdio servers can only be configured in the config file (mcp_servers), so import needs a remotes entry of type streamable-http or sse',
          'packages',
          'stdio_not_allowed',
        )
      : ApiError.invalid('server.json has no remotes entry to import', 'remotes');
  }
  const base = sourceBaseName(name);
  return remotes.map((remote: unknown, index) => {
    const param = `remotes[${index}]`;
    if (!isObject(remote)) throw ApiError.invalid(`${param} must be an object`, param);
    const transport = TRANSPORTS[remote.type as keyof typeof TRANSPORTS];
    if (typeof remote.type !== 'string' || !transport)
      throw ApiError.invalid(`${param}.type must be "streamable-http" or "sse"`, `${param}.type`);
    const url = remote.url;
    if (typeof url !== 'string' || url.length > MAX_URL || !URL.canParse(url))
      throw ApiError.invalid(`${param}.url must be an absolute URL`, `${param}.url`);
    if (url.includes('{'))
      throw ApiError.invalid(
        `${param}.url has template variables; register the source with its concrete URL instead`,
        `${param}.url`,
      );
    const suffix = remotes.length > 1 ? `-${index + 1}` : '';
    return { name: `${base.slice(0, 63 - suffix.length)}${suffix}`, url, transport };
  });
}

/** `io.example/Weather_API` -> `weather-api`: source names are lowercase letters, digits and dashes. */
function sourceBaseName(serverName: string): string {
  const last = serverName.slice(serverName.indexOf('/') + 1).toLowerCase();
  const cleaned = last
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+/, '')
    .replace(/-+$/, '');
  return cleaned || 'server';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
