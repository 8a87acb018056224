import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { mediumContext } from '../support/medium';

const ROOT = join(__dirname, '../..');
const SECTION = '### Where the code is';

/** The README's map of URLs to controllers and tables to owners: rows of `| cell | cell |` under SECTION. */
function codeMapRows(): { first: string; second: string }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(SECTION);
  if (start < 0) throw new Error(`README.md has no "${SECTION}" section`);
  const end = readme.indexOf('\n#', start + SECTION.length);
  return readme
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('| --'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map(([, first, second]) => ({ first, second }));
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);

function sourceFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Whether `file` names the table, itself or through an entity class it imports (`@Entity({ name: 'table' })`). */
function mentionsTable(file: string, table: string): boolean {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (new RegExp(`\\b${table}\\b`).test(text)) return true;
  return [...text.matchAll(/from '(\.[^']+\.entity)'/g)].some((match) => {
    const entity = readFileSync(join(ROOT, dirname(file), `${match[1]}.ts`), 'utf8');
    return entity.includes(`name: '${table}'`);
  });
}

describe('the README code map', () => {
  const rows = codeMapRows();

  it('lists every controller with the URL of its @Controller path', () => {
    const controllers = sourceFiles(join(ROOT, 'src'), '.controller.ts');
    expect(controllers.length).toBeGreaterThan(10);
    for (const file of controllers) {
      const listed = rows.filter((row) => backticked(row.second).includes(file));
      expect({ file, listed: listed.length > 0 }).toEqual({ file, listed: true });
      const urls = listed.flatMap((row) => backticked(row.first));
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, path] of text.matchAll(/@Controller\('([^']*)'\)/g)) {
        const url = `/${path}`.replace(/:(\w+)/g, '{$1}');
        expect({ file, url, listed: urls.some((listedUrl) => listedUrl.startsWith(url)) }).toEqual({
          file,
          url,
          listed: true,
        });
      }
    }
  });

  describe('lists the owner of every table the migrations create', () => {
    let tables: string[];

    beforeAll(async () => {
      const migrated = await mediumContext('postgres', { entities: [] });
      try {
        const rows = (await migrated.dataSource.query(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
        )) as { table_name: string }[];
        tables = rows.map((row) => row.table_name).sort();
      } finally {
        await migrated.close();
      }
    });

    it('with a file that exists and names the table', () => {
      expect(tables).toContain('tools');
      for (const table of tables) {
        const row = rows.find((candidate) => backticked(candidate.first).includes(table));
        expect({ table, listed: row !== undefined }).toEqual({ table, listed: true });
        const [owner] = backticked(row!.second);
        expect({ table, owner, exists: existsSync(join(ROOT, owner)) }).toEqual({ table, owner, exists: true });
        expect({ table, owner, names: mentionsTable(owner, table) }).toEqual({ table, owner, names: true });
      }
    });

    it('and no table that does not exist', () => {
      const listed = rows.flatMap((row) => backticked(row.first)).filter((cell) => /^[a-z_]+$/.test(cell));
      expect(listed.filter((table) => !tables.includes(table))).toEqual([]);
    });
  });
});
