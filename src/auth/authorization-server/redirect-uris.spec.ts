import { isLoopbackRedirect, redirectUriMatches, redirectUriProblem } from './redirect-uris';

describe('redirect URIs', () => {
  it('accepts https and loopback http, nothing else', () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/callback',
      'http://[::1]/cb',
      'http://localhost:6274/oauth/callback',
    ]) {
      expect(redirectUriProblem(uri)).toBeUndefined();
    }
    expect(redirectUriProblem('http://example.com/cb')).toMatch(/https/);
    expect(redirectUriProblem('http://127.0.0.2/cb')).toMatch(/https/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/https/);
    expect(redirectUriProblem('https://example.com/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('https://user:pw@example.com/cb')).toMatch(/user information/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
    expect(redirectUriProblem(`https://example.com/${'a'.repeat(2000)}`)).toMatch(/longer/);
    expect(redirectUriProblem('http://127.0.0.1:9999\\@evil.example/cb')).toMatch(/backslash/);
    expect(redirectUriProblem('https://a.example/c b')).toMatch(/spaces/);
  });

  it('matches exactly, or a loopback URI on any port', () => {
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb')).toBe(true);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb/')).toBe(false);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example:8443/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1/callback', 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches('http://[::1]:1/cb?x=1', 'http://[::1]:2/cb?x=1')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:1/callback', 'http://localhost:1/callback')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1/callback', 'http://127.0.0.1:1/other')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1/cb?x=1', 'http://127.0.0.1:1/cb?x=2')).toBe(false);
    expect(redirectUriMatches('http://example.com:1/cb', 'http://example.com:2/cb')).toBe(false);
  });

  it('compares the forms a browser would follow, and refuses a requested URI that reads two ways', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9999\\@evil.example/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9999@evil.example/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://x@127.0.0.1:9999/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9999/cb/../cb')).toBe(true);
    expect(redirectUriMatches('https://a.example/cb', 'https://A.EXAMPLE:443/cb')).toBe(true);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb\t')).toBe(false);
  });

  it('tells loopback redirect URIs (a native client listening locally) from remote ones', () => {
    for (const uri of ['http://127.0.0.1:1/cb', 'http://[::1]/cb', 'http://LOCALHOST:80/cb', 'https://localhost/cb'])
      expect(isLoopbackRedirect(uri)).toBe(true);
    for (const uri of ['https://app.example/cb', 'https://127.0.0.1.example/cb', 'https://localhost.example/cb'])
      expect(isLoopbackRedirect(uri)).toBe(false);
  });
});
