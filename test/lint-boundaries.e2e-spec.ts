import { ESLint } from 'eslint';
import { join } from 'node:path';

/** The module rules of eslint.config.mjs, proven to fail: `npm run lint` refuses each forbidden import. */
describe('module boundaries in npm run lint', () => {
  const eslint = new ESLint({ cwd: join(__dirname, '..') });

  async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${source}\nexport const used = imported;\n`, { filePath });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  }

  it.each([
    ['a provider importing the catalog', 'src/tools/builtins/web-search/x.ts', '../../catalog/catalog-state'],
    [
      'a provider importing invocation',
      'src/tools/builtins/file-search/search/x.ts',
      '../../../invocation/tool-policy',
    ],
    ['the registry importing invocation', 'src/tools/registry/x.ts', '../invocation/tool-dispatcher'],
    ['MCP importing invocation', 'src/tools/mcp/x.ts', '../invocation/tool-dispatcher'],
    ['a sandbox importing invocation', 'src/tools/sandbox/x.ts', '../invocation/tool-dispatcher'],
    ['the gateway importing a sandbox', 'src/gateway/x.ts', '../tools/sandbox/sandbox-runtime'],
    ['the gateway importing the catalog', 'src/gateway/x.ts', '../tools/catalog/catalog-state'],
    ['the gateway importing MCP', 'src/gateway/tool-search/x.ts', '../../tools/mcp/mcp-sources.service'],
    ['common importing a feature', 'src/common/x.ts', '../tenancy/request-context'],
  ])('refuses %s', async (_case, filePath, from) => {
    expect(await boundaryErrors(filePath, `import { imported } from '${from}';`)).toHaveLength(1);
    expect(await boundaryErrors(filePath, `import type { imported } from '${from}';`)).toHaveLength(1);
  });

  it.each([
    ['the gateway importing invocation', 'src/gateway/x.ts', '../tools/invocation/tool-dispatcher'],
    ['MCP importing the catalog', 'src/tools/mcp/x.ts', '../catalog/catalog-state'],
    [
      'a provider importing the registry contract',
      'src/tools/builtins/web-search/x.ts',
      '../../registry/function-provider',
    ],
    ['common importing a package', 'src/common/x.ts', '@nestjs/common'],
  ])('allows %s', async (_case, filePath, from) => {
    expect(await boundaryErrors(filePath, `import { imported } from '${from}';`)).toEqual([]);
  });
});
