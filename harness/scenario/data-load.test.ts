import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataSources, uniqueRowsProblem } from './data-load.ts';
import { PlateauError } from '../errors.ts';
import { configSchema } from '../config/schema.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-data-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const scenario = path.join(dir, 'scenario.ts');
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
const problem = (f: () => unknown): PlateauError => {
  try {
    f();
  } catch (err) {
    return err as PlateauError;
  }
  throw new Error('no error');
};

describe('data files beside the scenario', () => {
  it('loads CSV and JSON rows, read-only, and keeps a unique source’s last rows for the samples', () => {
    write('a.csv', 'id,name\n1,x\n2,y\n3,z\n');
    write('p.json', '[{"sku":"s1"},{"sku":"s2"}]');
    const d = loadDataSources(scenario, { a: { csv: './a.csv', order: 'unique' }, p: { json: './p.json' } }, 2);
    expect(d.a.rows).toHaveLength(3);
    expect(d.a.usable).toBe(1);
    expect(d.p.rows[1]).toEqual({ sku: 's2' });
    expect(d.p.usable).toBe(2);
    expect(Object.isFrozen(d.a.rows[0])).toBe(true);
  });
  it('a missing file, a ragged row or an empty array fails before load, naming the file, the line and the fix', () => {
    const missing = problem(() => loadDataSources(scenario, { a: { csv: './none.csv' } }, 1));
    expect(missing.message).toBe(`data file ${path.join(dir, 'none.csv')}: does not exist`);
    expect(missing.hint).toMatch(/relative to the scenario module/);
    write('r.csv', 'id,name\n1,x\n2\n');
    const ragged = problem(() => loadDataSources(scenario, { r: { csv: './r.csv' } }, 1));
    expect(ragged.message).toBe(`data file ${path.join(dir, 'r.csv')} line 3: the row has 1 fields, the header 2`);
    write('e.json', '[]');
    expect(problem(() => loadDataSources(scenario, { e: { json: './e.json' } }, 1)).message).toMatch(/empty array/);
  });
  it('refuses a plan whose arrivals exceed a unique source’s rows, with the numbers', () => {
    write('u.csv', 'id\n' + Array.from({ length: 100 }, (_, i) => i).join('\n') + '\n');
    const d = loadDataSources(scenario, { u: { csv: './u.csv', order: 'unique' } }, 3);
    expect(uniqueRowsProblem(d, 97)).toBeNull();
    const p = uniqueRowsProblem(d, 98)!;
    expect(p.message).toMatch(
      /order 'unique' and 100 rows \(97 for the load, 3 kept for preflight's sample arrivals\)/,
    );
    expect(p.message).toMatch(/can make 98 arrivals/);
    expect(p.hint).toMatch(/add at least 1 rows/);
    // the settings the fix names are the config's own
    const named = [...p.hint.matchAll(/\b([a-z]+)\.([A-Za-z]+)\b/g)].map((m) => [m[1], m[2]]);
    expect(named.map((n) => n.join('.'))).toEqual(['steps.maxPerSec', 'steps.holdS', 'warmup.maxS']);
    const shape = configSchema.shape as unknown as Record<string, { unwrap?: () => unknown; shape?: object }>;
    for (const [section, key] of named) {
      const sec = shape[section];
      const inner = (sec.shape ?? (sec.unwrap?.() as { shape?: object } | undefined)?.shape) as object;
      expect(Object.keys(inner), `${section}.${key}`).toContain(key);
    }
    const seq = loadDataSources(scenario, { u: { csv: './u.csv' } }, 3);
    expect(uniqueRowsProblem(seq, 10_000)).toBeNull();
  });
});
