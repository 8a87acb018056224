import type { ReviewSubject } from '../auto-review';
import { Findings } from './findings';
import { excerpt, sentences, words } from './text';

/**
 * Secrets of the machine or account the tool runs on: its environment variables, its `.env` files, its cloud
 * and SSH credentials, the browser's or keychain's saved passwords. A service's own keys ("returns the webhook's
 * signing secret", "get credentials for a cluster") are what an API returns and are left to the reviewer.
 */
const HOST_SECRETS =
  /\b(?:(?:all |every |the )?(?:process(?:'s)? )?environment(?:al)? variables|env(?:ironment)? vars?|process\.env|\.env files?|(?:aws|gcp|azure|cloud) credentials|~\/\.(?:aws|ssh|kube|docker|netrc|npmrc|git-credentials)\b|(?:saved|stored|browser|keychain) (?:passwords|credentials|cookies)|private (?:ssh )?keys)\b/i;
/** Verbs by which a tool hands secrets out or gathers them: returning, printing, collecting, exporting. */
const EXPOSES =
  /\b(?:returns?|returning|lists?|listing|shows?|prints?|dumps?|dumping|exposes?|reveals?|retrieves?|reads?|gets?|outputs?|displays?|extracts?|harvests?|harvesting|collects?|collecting|gathers?|scrapes?|sweeps?|exports?|uploads?|syncs?|backs? up|caches?|caching|mirrors?|copies|sends?)\b/i;
/** Gathering keys wherever they are is harmful whatever the kind of key: "harvests API keys found in the repo". */
const HARVESTS =
  /\b(?:harvests?|harvesting|collects? (?:all|any|every)|gathers? (?:all|any|every)|sweeps? (?:up|for)|scrapes?)\b.{0,40}\b(?:credentials|secrets|api[ _-]?keys|access tokens|tokens|passwords)\b/i;
/** The tool's own login: "reads AWS credentials from the environment to authenticate". */
const AUTHENTICATES = /\b(?:authenticat\w*|auth|log(?:s|ging)? in|sign(?:s|ing)? in|to connect|credential chain)\b/i;
/** "Values are NOT returned", "never exposes secrets", "no secrets", "names only", "the names of the variables". */
const DENIED =
  /\b(?:not|never|no|without|nor|non-sensitive|redact(?:s|ed)?|mask(?:s|ed)?|names only|only (?:the )?names|names of)\b/i;
/** Names of tools that dump the environment: get-env, printEnv, dump_env_vars. */
const ENV_DUMP_NAME =
  /^(?:get|list|print|dump|show|read|export|all) (?:env|envs|env vars?|environ|environment variables)$/;

/**
 * A tool that hands out the secrets of the machine or account it runs on (or gathers keys wherever it finds them)
 * without declaring `secret_access`: harm stated plainly as a feature, or a debugging aid that exposes every key
 * the server was started with (server-everything's `get-env`). Either way the reviewer must see it.
 */
export function checkSecretExposure(subject: ReviewSubject, findings: Findings): void {
  if (subject.permissions.includes('secret_access')) return;
  const name = words(subject.upstreamName ?? subject.name).join(' ');
  if (ENV_DUMP_NAME.test(name)) {
    findings.add(
      'permissions',
      35,
      `the name says the tool returns its environment variables, where API keys live, but secret_access is not declared`,
      'declare secret_access and check which variables it returns, or block the tool',
    );
    return;
  }
  for (const sentence of sentences(subject.description ?? '')) {
    const harvested = HARVESTS.exec(sentence);
    const host = HOST_SECRETS.exec(sentence);
    const handedOut =
      host && EXPOSES.test(sentence.slice(Math.max(0, host.index - 80), host.index)) && !AUTHENTICATES.test(sentence);
    const secret = harvested ?? (handedOut ? host : null);
    if (!secret || DENIED.test(sentence)) continue;
    findings.add(
      'permissions',
      35,
      `the description says the tool hands out or gathers secrets (${secret[0]}) but secret_access is not declared: "${excerpt(sentence)}"`,
      'declare secret_access and check where the secrets go, or block the tool',
    );
    return;
  }
}
