import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../config/config.loader';
import type { Config } from '../../../config/config.schema';

/** Secret references name an environment variable or a file: no path separators, no leading dot, no "..". */
const SECRET_REF_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/;

export class InvalidSecretRefError extends Error {}

export function isValidSecretRef(ref: string): boolean {
  return SECRET_REF_PATTERN.test(ref) && !ref.includes('..');
}

/** `mcp-github-api-key` -> `MCP_GITHUB_API_KEY`. */
export function envNameOf(ref: string): string {
  return ref.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

export interface MissingSecret {
  ref: string;
  /** What is wrong, e.g. `is missing: set the environment variable MCP_GITHUB_TOKEN or the file /run/secrets/...`. */
  problem: string;
  /** Who needs it, e.g. `tool github-list-issues`. */
  neededBy: string[];
}

/**
 * Source-level secrets (`secret_ref`): read from the environment (the exact name, then its
 * upper-snake form) or from a file `<secrets.dir>/<ref>` (how Kubernetes mounts Secrets), never from a
 * request or the configuration file. Values are read on every call and never kept, so a rotated mounted
 * Secret takes effect without a restart.
 *
 * Start-up check: whoever configures tools or sources calls `require(ref, neededBy)` while the application
 * starts (in a constructor or `onModuleInit`); at bootstrap every missing secret is logged on one line naming
 * the variable or file and what needs it, and with `secrets.strict_secrets: true` start-up fails with a
 * ConfigError listing them all. A `require` after start-up logs its line at once.
 */
export class SecretResolver implements OnApplicationBootstrap {
  private readonly logger = new Logger('Secrets');
  private readonly missing = new Map<string, MissingSecret>();
  /** Every valid ref something required, so that call-time scanning can recognise their values. */
  private readonly required = new Set<string>();
  private started = false;

  constructor(
    private readonly secrets: Pick<Config['secrets'], 'dir' | 'strict_secrets'>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The secret's value, or undefined when neither variable nor file holds one (an empty value counts as none).
   * A trailing newline of a file is removed. Throws InvalidSecretRefError for a ref that is not a plain name.
   */
  resolve(ref: string): string | undefined {
    this.assertValid(ref);
    for (const name of this.envNames(ref)) {
      const value = this.env[name];
      if (value) return value;
    }
    const path = this.filePath(ref);
    if (!path) return undefined;
    let content: string;
    try {
      content = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      // Unreadable (permissions, a directory): as missing, with a reason for the operator.
      this.logger.warn(`Secret file ${path} cannot be read (${code ?? (error as Error).message})`);
      return undefined;
    }
    const value = content.replace(/\r?\n$/, '');
    return value === '' ? undefined : value;
  }

  /**
   * Records that `neededBy` (e.g. `tool github-list-issues`, `MCP source github`) needs `ref`; answers the
   * value when it is there. Missing secrets are reported at bootstrap (see the class comment).
   */
  require(ref: string, neededBy: string): string | undefined {
    if (!isValidSecretRef(ref)) {
      this.record(ref, `is not a valid secret reference (${REF_RULE})`, neededBy);
      return undefined;
    }
    this.required.add(ref);
    const value = this.resolve(ref);
    if (value === undefined) this.record(ref, `is missing: set ${this.describeLocations(ref)}`, neededBy);
    return value;
  }

  /** The refs required so far (names only). */
  requiredRefs(): string[] {
    return [...this.required];
  }

  /** The secrets found missing so far, with what needs them. */
  missingSecrets(): MissingSecret[] {
    return [...this.missing.values()].map((entry) => ({ ...entry, neededBy: [...entry.neededBy] }));
  }

  onApplicationBootstrap(): void {
    this.started = true;
    const missing = this.missingSecrets();
    for (const entry of missing) this.logger.warn(describeMissing(entry));
    if (missing.length > 0 && this.secrets.strict_secrets) {
      throw new ConfigError(
        `Invalid configuration: ${missing.length} secret(s) missing and secrets.strict_secrets is on: ` +
          missing.map(describeMissing).join('; '),
      );
    }
  }

  /** Where `ref` is looked for, in words: used in messages about a missing secret. */
  describeLocations(ref: string): string {
    const upper = envNameOf(ref);
    const variables = `the environment variable ${upper}${upper === ref ? '' : ` (or ${ref})`}`;
    const path = this.filePath(ref);
    const file = path ? `the file ${path}` : `a file ${ref} in secrets.dir (not set)`;
    return `${variables} or ${file}`;
  }

  private record(ref: string, problem: string, neededBy: string): void {
    const known = this.missing.get(ref) ?? { ref, problem, neededBy: [] };
    if (!known.neededBy.includes(neededBy)) known.neededBy.push(neededBy);
    this.missing.set(ref, known);
    if (this.started) this.logger.warn(describeMissing({ ...known, neededBy: [neededBy] }));
  }

  private assertValid(ref: string): void {
    if (!isValidSecretRef(ref)) {
      throw new InvalidSecretRefError(`"${ref}" is not a valid secret reference: ${REF_RULE}`);
    }
  }

  private envNames(ref: string): string[] {
    const upper = envNameOf(ref);
    return upper === ref ? [ref] : [ref, upper];
  }

  private filePath(ref: string): string | undefined {
    return this.secrets.dir ? join(resolve(this.secrets.dir), ref) : undefined;
  }
}

const REF_RULE = 'letters, digits, "_", "." or "-", without path separators, "..", or a leading "."';

function describeMissing(entry: MissingSecret): string {
  return `Secret "${entry.ref}" ${entry.problem}, needed by ${entry.neededBy.join(' and ')}`;
}
