import { catalogName, servedName, TakenNames } from './mcp-tool-names';

describe('servedName', () => {
  it('prefixes under the prefixed naming and keeps an existing prefixed name', () => {
    const taken = new TakenNames(['docs-search']);
    expect(servedName('docs', 'search', 'prefixed', undefined, new TakenNames([]))).toEqual({ name: 'docs-search' });
    expect(servedName('docs', 'search', 'prefixed', 'docs-search', taken)).toEqual({ name: 'docs-search' });
  });

  it("serves the server's own name under the upstream naming, underscores and capitals included", () => {
    expect(servedName('ref', 'test_simple_text', 'upstream', undefined, new TakenNames([]))).toEqual({
      name: 'test_simple_text',
    });
    expect(servedName('ref', 'getUser', 'upstream', undefined, new TakenNames([]))).toEqual({ name: 'getUser' });
  });

  it('keeps the prefix, with the reason, when the name is held by another tool (ignoring case)', () => {
    const taken = new TakenNames(['echo']);
    expect(servedName('ref', 'Echo', 'upstream', undefined, taken)).toEqual({
      name: 'ref-echo',
      conflict: "the name 'Echo' is taken by catalog tool 'echo'",
    });
  });

  it('refuses reserved names and names outside the OpenAI function-name rule', () => {
    const none = new TakenNames([]);
    expect(servedName('ref', 'search_tools', 'upstream', undefined, none).conflict).toMatch(/reserved/);
    expect(servedName('ref', 'File_Search', 'upstream', undefined, none).conflict).toMatch(/reserved/);
    expect(servedName('ref', 'admin.tools.list', 'upstream', undefined, none)).toEqual({
      name: 'ref-admin-tools-list',
      conflict: expect.stringMatching(/not a valid served tool name/),
    });
    expect(servedName('ref', 'x'.repeat(65), 'upstream', undefined, none).conflict).toMatch(/not a valid/);
  });

  it("does not count the entry's own name as a collision, and renames when the naming changes", () => {
    const taken = new TakenNames(['test_error_handling', 'ref-echo']);
    expect(servedName('ref', 'test_error_handling', 'upstream', 'test_error_handling', taken)).toEqual({
      name: 'test_error_handling',
    });
    expect(servedName('ref', 'echo', 'upstream', 'ref-echo', taken)).toEqual({ name: 'echo' });
    expect(servedName('ref', 'test_error_handling', 'prefixed', 'test_error_handling', taken)).toEqual({
      name: 'ref-test-error-handling',
    });
  });

  it('adds a hash to a prefixed name already taken', () => {
    expect(catalogName('ref', 'a_b', new TakenNames(['ref-a-b']))).toMatch(/^ref-a-b-[0-9a-f]{6}$/);
  });
});
