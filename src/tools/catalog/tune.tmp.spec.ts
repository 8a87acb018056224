import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { autoReview } from './auto-review';
const F = join(__dirname, '../../../test/fixtures/auto-review');
const load = (f: string) => JSON.parse(readFileSync(join(F, f), 'utf8'));
it('tune', () => {
  const benign = load('benign.json');
  let extra: any[] = [];
  try {
    extra = load('benign-heldout.json');
  } catch {}
  const catalog = [...benign, ...extra].map((t: any) => t.name);
  const r = (t: any) =>
    autoReview(
      {
        name: t.name,
        description: t.description,
        schema: t.inputSchema,
        outputSchema: t.outputSchema,
        permissions: t.permissions,
        annotations: t.annotations,
        sourceType: 'mcp',
      },
      catalog,
    );
  const out: string[] = [];
  const fams: Record<string, [number, number]> = {};
  for (const t of load('attack-families.json')) {
    if (t.split !== 'tune') continue;
    const res = r(t);
    fams[t.family] ??= [0, 0];
    fams[t.family][1]++;
    if (res.score < 70) fams[t.family][0]++;
    else if (process.env.SHOW !== 'fp')
      out.push(
        `MISS ${t.family} ${t.name} ${res.score}: ${t.description.slice(0, 90)} | ${res.flags
          .filter((f: string) => !f.includes('unrestricted'))
          .join('; ')
          .slice(0, 200)}`,
      );
  }
  out.push(JSON.stringify(fams));
  const legacy = load('malicious.json').filter((t: any) => r(t).score >= 70);
  out.push(`legacy misses ${legacy.length}: ${legacy.map((t: any) => t.name).join(', ')}`);
  for (const [label, set] of [
    ['benign', benign],
    ['tune-new', extra.filter((t: any) => t.split === 'tune')],
  ] as const) {
    let n = 0;
    for (const t of set) {
      const res = r(t);
      if (res.score < 70) {
        n++;
        if (process.env.SHOW !== 'miss')
          out.push(
            `FP ${label} ${t.source} ${t.name} ${res.score}: ${res.flags
              .filter((f: string) => !f.includes('unrestricted'))
              .join('; ')}`,
          );
      }
    }
    out.push(`${label} FP ${n}/${set.length}`);
  }
  console.log(out.join('\n'));
});
