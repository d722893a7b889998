import { describe, expect, it } from 'vitest';
import { contextFactory, type LoadedSource } from './context.ts';

const source = (usable: number): LoadedSource => ({
  rows: Array.from({ length: usable }, (_, i) => ({ id: String(i) })),
  order: 'unique',
  file: '/s/rows.csv',
  usable,
});

describe('ctx.row', () => {
  it('an unknown source quotes the names the scenario declares', () => {
    const ctx = contextFactory('run', '', {}, { data: { a: source(1), 'b c': source(1) } })(1);
    expect(() => ctx.row('x')).toThrow('ctx.row("x"): no data source of that name (the scenario has "a", "b c")');
  });
  it('a unique source used up names its counts with thousands separators', () => {
    const ctx = contextFactory('run', '', {}, { data: { a: source(1234) } })(1235);
    expect(() => ctx.row('a')).toThrow(
      `data source "a" (/s/rows.csv) has 1,234 rows for the load and order 'unique': arrival 1,235 has none left`,
    );
  });
});
