import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'coverage/**', 'node_modules/**', 'helm/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { sourceType: 'module' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Module boundaries (README, "Architecture"): each rule names the directories whose files may not import
  // the listed folders. A pattern matches the folder anywhere in a relative path, e.g. '../../catalog/x'.
  ...boundaries([
    {
      files: ['src/common/**'],
      forbid: '^\\.\\./',
      message: 'src/common knows no feature: move what it needs into common, or the code into the feature.',
    },
    {
      files: ['src/tools/builtins/**'],
      forbid: '(^|/)(catalog|invocation|mcp|gateway|responses)(/|$)',
      message: 'Providers are called by the dispatcher and know nothing of the catalog, invocation or MCP.',
    },
    {
      files: ['src/tools/registry/**', 'src/tools/mcp/**', 'src/tools/sandbox/**'],
      forbid: '(^|/)(invocation|gateway|responses)(/|$)',
      message: 'The registry, MCP sources and sandboxes supply executors; they never call the dispatcher.',
    },
    {
      files: ['src/gateway/**'],
      forbid: '(^|/)tools/(catalog|mcp|registry|sandbox)(/|$)',
      message: 'The /mcp gateway reaches tools only through the dispatcher (src/tools/invocation).',
    },
  ]),
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

/** One `no-restricted-imports` setting per directory (flat config: a later setting replaces an earlier one). */
function boundaries(rules) {
  return rules.map(({ files, forbid, message }) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: forbid, message }] }] },
  }));
}
