import type { ToolDefinition } from '../../tools/tool-executor';
import { term, words } from './search-terms';
import { ToolSearchIndex } from './tool-search-index';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolDefinition => ({
  name,
  description,
  parameters: { type: 'object', properties },
});

const names = (index: ToolSearchIndex, query: string, limit = 10) =>
  index.search(query, limit).map((match) => match.definition.name);

describe('tool search terms', () => {
  it('splits identifiers at snake_case, kebab-case, dots and camelCase humps', () => {
    expect(words('github-create_pullRequest.v2 HTTPServer')).toEqual([
      'github',
      'create',
      'pull',
      'Request',
      'v2',
      'HTTP',
      'Server',
    ]);
  });

  it('meets plurals and verb forms, and drops words that say nothing', () => {
    expect(term('Issues')).toBe(term('issue'));
    expect(term('repositories')).toBe(term('repository'));
    expect(term('creating')).toBe(term('create'));
    expect(term('created')).toBe(term('create'));
    expect(term('the')).toBeNull();
  });
});

describe('ToolSearchIndex', () => {
  const index = new ToolSearchIndex([
    tool('github-create-pull-request', 'Create a new pull request in a GitHub repository', {
      head: { type: 'string', description: 'The branch with your changes' },
    }),
    tool('github-merge-pull-request', 'Merge a pull request'),
    tool('slack-post-message', 'Post a new message to a Slack channel', {
      channel_id: { type: 'string', description: 'The channel to post to' },
    }),
    tool('time-get-current-time', 'Get current time in a specific timezone'),
  ]);

  it('ranks by name, description and parameters', () => {
    expect(names(index, 'open a pull request with my changes')[0]).toBe('github-create-pull-request');
    expect(names(index, 'merge PR')[0]).toBe('github-merge-pull-request');
    expect(names(index, 'send something to a slack channel')).toEqual(['slack-post-message']);
    expect(names(index, 'what time is it in Tokyo')).toEqual(['time-get-current-time']);
  });

  it('matches prefixes of longer words and tolerates a typo', () => {
    expect(names(index, 'repo')).toContain('github-create-pull-request');
    expect(names(index, 'timezon')).toEqual(['time-get-current-time']);
    expect(names(index, 'messsage chanel')).toEqual(['slack-post-message']);
  });

  it('is deterministic: equal scores are ordered by name', () => {
    const twins = new ToolSearchIndex([tool('b-echo', 'Echo the input'), tool('a-echo', 'Echo the input')]);
    expect(names(twins, 'echo input')).toEqual(['a-echo', 'b-echo']);
    expect(names(index, 'pull request', 1)).toEqual(names(index, 'pull request', 1));
  });

  it('finds nothing for an empty or stop-word query', () => {
    expect(names(index, '')).toEqual([]);
    expect(names(index, 'what can you do for me')).toEqual([]);
  });

  it('indexes hostile definitions within limits: huge descriptions, deep and wide schemas', () => {
    let deep: Record<string, unknown> = { type: 'string', description: 'bottom' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { [`level${i}`]: deep } };
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field${i}`, { type: 'string' }]));
    const hostile = new ToolSearchIndex([
      tool('huge', `${'padding '.repeat(100_000)} needle`),
      { name: 'deep', description: 'Deep schema', parameters: deep },
      tool('wide', 'Wide schema', wide),
    ]);
    // Text past the cap is not indexed; the walk stops at its depth and count limits.
    expect(names(hostile, 'needle')).toEqual([]);
    expect(names(hostile, 'bottom')).toEqual([]);
    expect(names(hostile, 'field9999')).toEqual([]);
    expect(names(hostile, 'level4999')).toEqual(['deep']);
    expect(names(hostile, 'field0')).toEqual(['wide']);
  });
});
