import { rmSync } from 'node:fs';
import { buildService, cleanEnv, MAIN, runNode, tempDir } from './support/server-process';

/** A web_search setup that cannot work stops the real server at start with one line. */
describe('web_search start-up checks', () => {
  const cwd = tempDir();

  beforeAll(buildService, 120_000);
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  async function start(extra: Record<string, string>) {
    const env = cleanEnv({ TOOLGATE_DATA_DIR: cwd, TOOLGATE_BUILTINS__WEB_SEARCH__ENABLED: 'true', ...extra });
    for (const name of ['BRAVE_API_KEY', 'TAVILY_API_KEY', 'SERPER_API_KEY']) delete env[name];
    const output = runNode(MAIN, [], env, cwd);
    const exit = await output.exited;
    return { code: exit.code, stdout: output.stdout, lines: output.stderr.split('\n').filter((line) => line !== '') };
  }

  it('an enabled Brave backend without BRAVE_API_KEY names the variable and where to get a key', async () => {
    const result = await start({
      TOOLGATE_BUILTINS__WEB_SEARCH__SEARCH_ENGINE_URL: 'http://127.0.0.1:9',
      TOOLGATE_BUILTINS__WEB_SEARCH__BACKENDS: '[searxng, brave]',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('listening');
    expect(result.lines).toEqual([
      'Invalid configuration: the brave web search backend needs an API key: set BRAVE_API_KEY ' +
        '(get a key at https://brave.com/search/api/) or builtins.web_search.brave.api_key_file, ' +
        'or remove brave from builtins.web_search.backends',
    ]);
  });

  it('enabled without any backend says how to configure one', async () => {
    const result = await start({});
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^Invalid configuration: builtins\.web_search is enabled but has no search backend: /),
    ]);
  });
});
