import type { SearchResult } from './search-adapter';

/**
 * `allow_domains` / `deny_domains` applied to result URLs. A domain covers itself and its subdomains
 * ("example.com" matches "docs.example.com", not "badexample.com"). Deny wins over allow; with an allow
 * list, anything outside it is dropped. Domains arrive normalized (lower case, ASCII) from the config.
 */
export class DomainFilter {
  constructor(
    private readonly allow: readonly string[],
    private readonly deny: readonly string[],
  ) {}

  get active(): boolean {
    return this.allow.length > 0 || this.deny.length > 0;
  }

  admits(url: string): boolean {
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
    } catch {
      return false;
    }
    if (this.deny.some((domain) => covers(domain, host))) return false;
    return this.allow.length === 0 || this.allow.some((domain) => covers(domain, host));
  }

  apply(results: SearchResult[]): SearchResult[] {
    return this.active ? results.filter((result) => this.admits(result.url)) : results;
  }
}

function covers(domain: string, host: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
