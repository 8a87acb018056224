import { Logger } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../config/config.loader';
import { envNameOf, InvalidSecretRefError, isValidSecretRef, SecretResolver } from './secret-resolver';

describe('SecretResolver', () => {
  let dir: string;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-secrets-'));
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  });

  const resolver = (env: NodeJS.ProcessEnv, options: { dir?: string; strict?: boolean } = {}) =>
    new SecretResolver({ dir: options.dir, strict_secrets: options.strict ?? false }, env);

  it('reads the exact variable first, then the upper-snake form of the ref', () => {
    expect(envNameOf('mcp-github-api-key')).toBe('MCP_GITHUB_API_KEY');
    expect(resolver({ MCP_GITHUB_API_KEY: 'from-upper' }).resolve('mcp-github-api-key')).toBe('from-upper');
    expect(resolver({ 'mcp-github-api-key': 'exact', MCP_GITHUB_API_KEY: 'upper' }).resolve('mcp-github-api-key')).toBe(
      'exact',
    );
    expect(resolver({ MCP_GITHUB_API_KEY: '' }).resolve('mcp-github-api-key')).toBeUndefined();
  });

  it('reads <secrets.dir>/<ref>, dropping a trailing newline, after the environment', () => {
    writeFileSync(join(dir, 'slack.token'), 'xoxb-from-file\n');
    writeFileSync(join(dir, 'empty'), '\n');
    writeFileSync(join(dir, 'spaced'), '  keeps inner space  \r\n');
    const secrets = resolver({}, { dir });
    expect(secrets.resolve('slack.token')).toBe('xoxb-from-file');
    expect(secrets.resolve('empty')).toBeUndefined();
    expect(secrets.resolve('spaced')).toBe('  keeps inner space  ');
    expect(secrets.resolve('absent')).toBeUndefined();
    expect(resolver({ SLACK_TOKEN: 'env wins' }, { dir }).resolve('slack.token')).toBe('env wins');
    // Re-read on every call: a rotated mounted Secret takes effect at once.
    writeFileSync(join(dir, 'slack.token'), 'rotated');
    expect(secrets.resolve('slack.token')).toBe('rotated');
  });

  it('refuses refs with path separators, "..", or a leading dot', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'x'), 'nested');
    const secrets = resolver({}, { dir: join(dir, 'sub') });
    for (const ref of ['../x', 'sub/x', 'a\\b', '..', '.hidden', 'a..b', '', '/etc/passwd']) {
      expect(isValidSecretRef(ref)).toBe(false);
      expect(() => secrets.resolve(ref)).toThrow(InvalidSecretRefError);
    }
    expect(isValidSecretRef('github_token.v2')).toBe(true);
  });

  it('logs one line per missing secret at bootstrap, naming the variable, the file and what needs it', () => {
    writeFileSync(join(dir, 'present'), 'here');
    const secrets = resolver({}, { dir });
    expect(secrets.require('present', 'tool a')).toBe('here');
    expect(secrets.require('mcp-github-token', 'tool github-list-issues')).toBeUndefined();
    secrets.require('mcp-github-token', 'MCP source github');
    secrets.require('../escape', 'tool b');
    expect(warn).not.toHaveBeenCalled();

    secrets.onApplicationBootstrap();
    expect(warn.mock.calls.map((call) => call[0] as string)).toEqual([
      `Secret "mcp-github-token" is missing: set the environment variable MCP_GITHUB_TOKEN (or mcp-github-token) or ` +
        `the file ${join(dir, 'mcp-github-token')}, needed by tool github-list-issues and MCP source github`,
      expect.stringMatching(/^Secret "\.\.\/escape" is not a valid secret reference .*, needed by tool b$/),
    ]);

    // Late requirements are reported at once.
    secrets.require('LATE_KEY', 'tool c');
    expect(warn).toHaveBeenLastCalledWith(
      `Secret "LATE_KEY" is missing: set the environment variable LATE_KEY or the file ${join(dir, 'LATE_KEY')}, ` +
        'needed by tool c',
    );
  });

  it('with strict_secrets, bootstrap fails with a ConfigError listing every missing secret', () => {
    const secrets = resolver({ PRESENT: 'yes' }, { strict: true });
    secrets.require('PRESENT', 'tool a');
    secrets.require('first-missing', 'tool b');
    secrets.require('SECOND_MISSING', 'tool c');
    let error: unknown;
    try {
      secrets.onApplicationBootstrap();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'Invalid configuration: 2 secret(s) missing and secrets.strict_secrets is on: ' +
        'Secret "first-missing" is missing: set the environment variable FIRST_MISSING (or first-missing) or a file ' +
        'first-missing in secrets.dir (not set), needed by tool b; ' +
        'Secret "SECOND_MISSING" is missing: set the environment variable SECOND_MISSING or a file SECOND_MISSING ' +
        'in secrets.dir (not set), needed by tool c',
    );
    expect(resolver({ PRESENT: 'yes' }, { strict: true }).onApplicationBootstrap()).toBeUndefined();
  });
});
