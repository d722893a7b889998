import { rowAt } from './csv-rows.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataSources, uniqueRowsProblem } from './data-load.ts';
import { PlateauError } from '../errors.ts';
import { configSchema } from '../config/schema.ts';
import type { Traffic, TrafficEntry } from './traffic.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-data-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const scenario = path.join(dir, 'scenario.ts');
const write = (name: string, text: string | Uint8Array) => fs.writeFileSync(path.join(dir, name), text);
const problem = (f: () => unknown): PlateauError => {
  try {
    f();
  } catch (err) {
    return err as PlateauError;
  }
  throw new Error('no error');
};

write('u8.csv', 'id,name\n1,café 😀\n');

/** A mix of these entries and weights, as uniqueRowsProblem reads one. */
const mixOf = (weights: Record<string, number>): Pick<Traffic, 'entries'> => ({
  entries: Object.entries(weights).map(([name, weight]) => ({ name, weight }) as TrafficEntry),
});
const ONE = mixOf({ request: 1 });
const THREE = mixOf({ a: 1, b: 1, c: 1 });

describe('data files beside the scenario', () => {
  it('loads CSV and JSON rows, read-only, and keeps a unique source’s last rows for the samples', () => {
    write('a.csv', 'id,name\n1,x\n2,y\n3,z\n');
    write('p.json', '[{"sku":"s1"},{"sku":"s2"}]');
    const d = loadDataSources(scenario, { a: { csv: './a.csv', order: 'unique' }, p: { json: './p.json' } }, 2);
    expect(d.a.rows).toHaveLength(3);
    expect(d.a.usable).toBe(1);
    expect(rowAt(d.p.rows, 1)).toEqual({ sku: 's2' });
    expect(d.p.usable).toBe(2);
    expect(Object.isFrozen(rowAt(d.a.rows, 0))).toBe(true);
  });
  it('a missing file, a ragged row or an empty array fails before load, naming the file, the line and the fix', () => {
    const missing = problem(() => loadDataSources(scenario, { a: { csv: './none.csv' } }, 1));
    expect(missing.message).toBe(`data file ${path.join(dir, 'none.csv')}: does not exist`);
    expect(missing.hint).toMatch(/relative to the scenario module/);
    write('r.csv', 'id,name\n1,x\n2\n');
    const ragged = problem(() => loadDataSources(scenario, { r: { csv: './r.csv' } }, 1));
    expect(ragged.message).toBe(`data file ${path.join(dir, 'r.csv')} line 3: the row has 1 field, the header 2`);
    write('e.json', '[]');
    expect(problem(() => loadDataSources(scenario, { e: { json: './e.json' } }, 1)).message).toMatch(/empty array/);
  });
  it('a file given as the other format: the fix names the other key, not a repair of the file', () => {
    write('rows.json', '[{"id": "a1", "note": "x"}]\n');
    const asCsv = problem(() => loadDataSources(scenario, { d: { csv: './rows.json' } }, 1));
    expect(asCsv.hint).toBe(
      "the file looks like JSON: give it as data.d = { json: './rows.json' } (an array of objects)",
    );
    write('table.csv', 'id,note\na1,x\n');
    const asJson = problem(() => loadDataSources(scenario, { d: { json: './table.csv' } }, 1));
    expect(asJson.hint).toBe(
      "the file looks like CSV: give it as data.d = { csv: './table.csv' } (a header row, then the rows)",
    );
    expect(problem(() => loadDataSources(scenario, { 'my-rows': { csv: './rows.json' } }, 1)).hint).toMatch(
      /^the file looks like JSON: give it as data\['my-rows'\] = /,
    );
    // a broken file of the right format keeps its own fix
    write('bad.json', '[{"id": }]');
    expect(problem(() => loadDataSources(scenario, { d: { json: './bad.json' } }, 1)).hint).not.toMatch(/looks like/);
  });

  it('refuses a plan whose arrivals exceed a unique source’s rows, with the numbers', () => {
    write('u.csv', 'id\n' + Array.from({ length: 100 }, (_, i) => i).join('\n') + '\n');
    const d = loadDataSources(scenario, { u: { csv: './u.csv', order: 'unique' } }, 3);
    expect(uniqueRowsProblem(d, 97, true, THREE)).toBeNull();
    const p = uniqueRowsProblem(d, 98, true, THREE)!;
    expect(p.message).toMatch(
      /order 'unique' and 100 rows \(97 for the load, 3 kept for preflight's sample arrivals\)/,
    );
    expect(p.message).toMatch(
      /can make 98 arrivals \(warmup, steps and a rerun of each step\): without a readBy, arrival n takes the n-th row whichever entry of the mix it runs/,
    );
    // the mix's own entries (not the demo's 'create order'), where no one knows which read it
    expect(p.hint).toMatch(
      /^add at least 1 row, list the entries that read it in its readBy \(those of "a", "b", "c" that read it, as readBy: \['a'\]: only their arrivals take rows\)/,
    );
    // those seen reading it, where known; none where every entry does (a readBy of all takes as many rows)
    const known = (readers: string[], unknown: string[] = []) =>
      uniqueRowsProblem(d, 98, true, THREE, true, () => ({ readers: { u: readers }, unknown }))!.hint;
    expect(known(['b'], ['c'])).toMatch(
      /^add at least 1 row, list the entries that read it in its readBy \(readBy: \['b'\]: the entries whose sample request read it, with "c" if it reads it too; only their arrivals take rows\), /,
    );
    expect(known(['a', 'b', 'c'])).toMatch(/^add at least 1 row, lower the plan/);
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
    expect(uniqueRowsProblem(seq, 10_000, true, THREE)).toBeNull();
  });
  it('without a warmup, the refusal neither counts nor names one; counts have thousands separators', () => {
    write('k.csv', 'id\n' + Array.from({ length: 1234 }, (_, i) => i).join('\n') + '\n');
    const d = loadDataSources(scenario, { k: { csv: './k.csv', order: 'unique' } }, 3);
    const p = uniqueRowsProblem(d, 12_345, false, THREE)!;
    expect(p.message).toMatch(/and 1,234 rows \(1,231 for the load, 3 kept for preflight's sample arrivals\)/);
    expect(p.message).toMatch(/can make 12,345 arrivals \(steps and a rerun of each step\): without a readBy/);
    // one entry (one sample row): no mix to explain
    const one = uniqueRowsProblem(
      loadDataSources(scenario, { k: { csv: './k.csv', order: 'unique' } }, 1),
      12_345,
      false,
      ONE,
    )!;
    expect(one.message).toMatch(/can make 12,345 arrivals \(steps and a rerun of each step\)$/);
    expect(one.hint).toBe(
      "add at least 11,112 rows, lower the plan (steps.maxPerSec or --max-rate, steps.holdS or --hold), or use order 'sequential' (rows wrap) or 'random'",
    );
    expect(p.hint).toBe(
      'add at least 11,114 rows, list the entries that read it in its readBy (those of "a", "b", "c" that read it, as readBy: [\'a\']: only their arrivals take rows), lower the plan (steps.maxPerSec or --max-rate, steps.holdS or --hold), or use order \'sequential\' (rows wrap) or \'random\'',
    );
  });
  it("with a readBy, a unique source needs rows for its readers' arrivals only, counted by the mix's order", () => {
    write('w.csv', 'id\n' + Array.from({ length: 1003 }, (_, i) => i).join('\n') + '\n');
    // read 70, create 25, checkout 5: the readers are 30 of every 100 arrivals
    const mix = mixOf({ read: 70, create: 25, checkout: 5 });
    const d = loadDataSources(scenario, { w: { csv: './w.csv', order: 'unique', readBy: ['create', 'checkout'] } }, 4);
    expect(d.w.usable).toBe(999);
    expect(d.w.readBy).toEqual(['create', 'checkout']);
    // 3,300 arrivals: 990 of the readers; without the readBy, 3,300 rows
    expect(uniqueRowsProblem(d, 3_300, true, mix)).toBeNull();
    const { readBy: _, ...all } = d.w;
    expect(uniqueRowsProblem({ w: all }, 3_300, true, mix)!.message).toMatch(/can make 3,300 arrivals/);
    const p = uniqueRowsProblem(d, 3_400, true, mix)!;
    expect(p.message).toMatch(
      /but the plan can make 3,400 arrivals \(warmup, steps and a rerun of each step\), 1,020 of them of its readBy \("create", "checkout"\)$/,
    );
    expect(p.hint).toMatch(/^add at least 21 rows, lower the plan/);
  });
});

describe('a data file that cannot be read as rows', () => {
  const load = (name: string, bytes: string | Uint8Array, kind: 'csv' | 'json' = 'csv') => {
    write(name, bytes);
    const src = kind === 'csv' ? { csv: `./${name}` } : { json: `./${name}` };
    return problem(() => loadDataSources(scenario, { d: src }, 1));
  };
  it('a Latin-1 byte is refused with its line and the fix, not read as U+FFFD', () => {
    const p = load('latin1.csv', Buffer.from('id,name\n1,"x\ny"\n2,caf\xe9\n', 'latin1'));
    expect(p.message).toBe(
      `data file ${path.join(dir, 'latin1.csv')} line 4: is not UTF-8: byte 0xE9 at byte 6 of the line cannot be read (a Latin-1 or Windows-1252 file?)`,
    );
    expect(p.hint).toMatch(/^save the file as UTF-8/);
    // the file's very first byte: its line starts at 0 (not at the file's last line feed)
    expect(load('latin1-head.csv', Buffer.from('\xc9metteur,id\nx,1\n', 'latin1')).message).toMatch(
      /line 1: is not UTF-8: byte 0xC9 at byte 1 of the line cannot be read/,
    );
    const utf8 = loadDataSources(scenario, { d: { csv: './u8.csv' } }, 1);
    expect(rowAt(utf8.d.rows, 0)).toEqual({ id: '1', name: 'café 😀' });
  });
  it.each<[string, Buffer]>([
    ['byte-order mark FF FE, little-endian', Buffer.from('\ufeffid,name\n1,x\n', 'utf16le')],
    ['byte-order mark FE FF, big-endian', Buffer.from('\ufeffid,name\n1,x\n', 'utf16le').swap16()],
    ['no byte-order mark, little-endian: NUL bytes', Buffer.from('id,name\n1,x\n', 'utf16le')],
    ['no byte-order mark, big-endian: NUL bytes', Buffer.from('id,name\n1,x\n', 'utf16le').swap16()],
  ])('a UTF-16 file says so (%s)', (how, bytes) => {
    const p = load('utf16.csv', bytes);
    expect(p.message).toBe(`data file ${path.join(dir, 'utf16.csv')}: is UTF-16 (${how}), not UTF-8`);
    expect(p.hint).toMatch(/^save the file as UTF-8/);
  });
  it('a directory says so and names the setting to fix', () => {
    fs.mkdirSync(path.join(dir, 'rows.csv'));
    const p = problem(() => loadDataSources(scenario, { d: { csv: './rows.csv' } }, 1));
    expect(p.message).toBe(`data file ${path.join(dir, 'rows.csv')}: is a directory, not a file`);
    expect(p.hint).toMatch(/set data\.d in the scenario to the file's path/);
  });
  it('gives a CSV problem its own fix, and a JSON syntax error its line and column', () => {
    const dup = load('dup.csv', 'id,id\n1,2\n');
    expect(dup.message).toMatch(/line 1: the header row names "id" twice/);
    expect(dup.hint).toBe('rename one of the two "id" columns');
    const json = load('bad.json', '[\n{"id": 1}\n{"id": 2}]', 'json');
    expect(json.message).toBe(
      `data file ${path.join(dir, 'bad.json')} line 3: is not JSON at column 1: expected ',' or ']', found "{"`,
    );
    expect(json.hint).toBe('correct the JSON at line 3 column 1');
  });
  it('accepts a UTF-8 byte-order mark before JSON', () => {
    write('bom.json', '\ufeff[{"id": "1"}]');
    expect(loadDataSources(scenario, { d: { json: './bom.json' } }, 1).d.rows).toEqual([{ id: '1' }]);
  });
});

describe('JSON rows are read-only all the way down', () => {
  it('an arrival cannot change a nested object or array for the arrivals after it', () => {
    write('nested.json', '[{"id": "1", "cart": {"items": [{"sku": "s1", "qty": 1}]}}]');
    const [row] = loadDataSources(scenario, { d: { json: './nested.json' } }, 1).d.rows as unknown as {
      cart: { items: { qty: number }[] };
    }[];
    expect(() => {
      row.cart.items[0].qty = 2;
    }).toThrow(TypeError);
    expect(() => row.cart.items.push({ qty: 3 })).toThrow(TypeError);
    expect(Object.isFrozen(row.cart)).toBe(true);
    expect(row.cart.items[0].qty).toBe(1);
  });
  it('freezes a file nested deeper than the call stack allows recursion', () => {
    const depth = 100_000;
    write('deep.json', `[{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}]`);
    const [row] = loadDataSources(scenario, { d: { json: './deep.json' } }, 1).d.rows as unknown as { a: unknown[] }[];
    let inner: unknown[] = row.a;
    for (let i = 1; i < depth; i++) inner = inner[0] as unknown[];
    expect(Object.isFrozen(inner)).toBe(true);
  });
});
