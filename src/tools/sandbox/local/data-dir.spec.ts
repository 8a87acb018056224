import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectFiles, handOver, placeFiles, snapshot } from './data-dir';

const LIMITS = { maxFiles: 3, maxFileBytes: 10, maxTotalBytes: 15 };

/** The host side of a sandbox's files, on real directories that untrusted code could have left behind. */
describe('sandbox files directory', () => {
  let dir: string;
  let outside: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-data-dir-'));
    outside = mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
    writeFileSync(join(outside, 'target.txt'), 'not yours');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('reads back only new or changed regular files, and names every entry it leaves out', async () => {
    writeFileSync(join(dir, 'old.txt'), 'same');
    writeFileSync(join(dir, 'edited.txt'), 'v1');
    const before = await snapshot(dir);
    writeFileSync(join(dir, 'edited.txt'), 'v2 longer');
    writeFileSync(join(dir, 'a.txt'), 'aaaa');
    writeFileSync(join(dir, 'big.bin'), 'x'.repeat(11));
    writeFileSync(join(dir, 'z.txt'), 'zzzzzz');
    symlinkSync(join(outside, 'target.txt'), join(dir, 'link.txt'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    mkdirSync(join(dir, 'sub'));

    const { files, skipped } = await collectFiles(dir, before, LIMITS);

    expect(files.map((file) => [file.name, file.content.toString()])).toEqual([
      ['a.txt', 'aaaa'],
      ['edited.txt', 'v2 longer'],
    ]);
    expect(skipped.sort()).toEqual(
      [
        'big.bin: larger than 10 bytes',
        'link.txt: a symbolic link (only regular files are returned)',
        'pipe: not a regular file (only regular files are returned)',
        'sub: not a regular file (only regular files are returned)',
        'z.txt: the files returned would exceed 15 bytes in all',
      ].sort(),
    );
  });

  it('replaces a link in the way of an input file instead of writing through it', async () => {
    symlinkSync(join(outside, 'target.txt'), join(dir, 'in.csv'));
    await placeFiles(dir, [{ name: 'in.csv', content: Buffer.from('a,b\n') }], undefined);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('not yours');
    expect(lstatSync(join(dir, 'in.csv')).isFile()).toBe(true);
    await expect(placeFiles(dir, [{ name: '../escape', content: Buffer.from('x') }], undefined)).rejects.toThrow(
      'Cannot put a file named "../escape" in a sandbox',
    );
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('hands every entry over to another user without following links out', async () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'file.txt'), 'x');
    symlinkSync(outside, join(dir, 'to-outside'));
    await handOver(dir, { uid: 200_123, gid: 65_534 });
    expect(statSync(join(dir, 'nested', 'file.txt')).uid).toBe(200_123);
    expect(lstatSync(join(dir, 'to-outside')).uid).toBe(200_123);
    expect(statSync(join(outside, 'target.txt')).uid).toBe(0);
    expect(statSync(outside).uid).toBe(0);
  });
});
