import { describe, expect, it } from 'vitest';
import { CsvRows, parseCsv, rowAt } from './csv-rows.ts';
import { DataError } from './data-rows.ts';

/** A field as RFC 4180 writes it: quoted where it holds a comma, a quote or a line break. */
const quoted = (f: string) => (/[",\r\n]/.test(f) || f === '' ? `"${f.replace(/"/g, '""')}"` : f);

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

describe('CsvRows: a CSV checked whole, its rows made when asked for', () => {
  it.each([1, 2, 3, 4, 5])(
    'gives back every field written, commas, quotes and line breaks in them (seed %i)',
    (seed) => {
      const r = random(seed);
      const pieces = ['a', 'b c', ',', '"', '\n', '\r\n', 'é', '😀', ' ', '1'];
      const columns = ['id', 'note', 'x'];
      const rows = Array.from({ length: 200 }, (_, i) => [
        String(i),
        ...[1, 2].map(() =>
          Array.from({ length: Math.floor(r() * 5) }, () => pieces[Math.floor(r() * pieces.length)]).join(''),
        ),
      ]);
      const eol = seed % 2 ? '\r\n' : '\n';
      const text = [columns.join(','), ...rows.map((f) => f.map(quoted).join(','))].join(eol) + (seed % 3 ? eol : '');
      const csv = CsvRows.of(text);
      expect(csv.length).toBe(rows.length);
      expect(csv.columns).toEqual(columns);
      for (let i = 0; i < rows.length; i++) expect(Object.values(csv.at(i)!), `row ${i}`).toEqual(rows[i]);
      expect(parseCsv(text).map((row) => Object.values(row))).toEqual(rows);
    },
  );

  it('skips blank lines, keeps a row of one quoted empty field, and names lines counted across quoted line breaks', () => {
    const csv = CsvRows.of('id\n1\n\n""\n"a\nb"\n2\n');
    expect([0, 1, 2, 3].map((i) => csv.at(i))).toEqual([{ id: '1' }, { id: '' }, { id: 'a\nb' }, { id: '2' }]);
    let err: unknown;
    try {
      CsvRows.of('id,note\n1,"two\nlines"\n2\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataError);
    expect([(err as DataError).line, (err as DataError).message]).toEqual([4, 'the row has 1 field, the header 2']);
  });

  it("makes each row frozen and anew, reads back from the end as an array's at does, and nothing past its rows", () => {
    const csv = CsvRows.of('id,name\n1,x\n2,y\n');
    const a = csv.at(0)!;
    expect(Object.isFrozen(a)).toBe(true);
    expect(csv.at(0)).not.toBe(a);
    expect(csv.at(0)).toEqual(a);
    expect([csv.at(-1), csv.at(2), csv.at(-3)]).toEqual([{ id: '2', name: 'y' }, undefined, undefined]);
    expect([rowAt(csv, 1), rowAt([{ id: 'j' }], 0)]).toEqual([{ id: '2', name: 'y' }, { id: 'j' }]);
  });
});
