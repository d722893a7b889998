import { describe, expect, it } from 'vitest';
import { rowWrites, rowWriteText, type WrittenSource } from './row-writes.ts';

const accounts: WrittenSource = { name: 'accounts', csv: true, rows: [{ id: '1', name: 'ann' }] };
const carts: WrittenSource = {
  name: 'carts',
  csv: false,
  rows: [{ cart: 'c1', items: ['ink'], owner: { tier: 'gold' } }],
};
const prices: WrittenSource = { name: "it's", csv: false, rows: [{ sku: 'a', cents: 1 }] };

/** The message V8 (the native engine) or goja (k6) throws for the write, as the load words it. */
const text = (message: string, read?: ReadonlySet<string>) => {
  const w = rowWrites([accounts, carts, prices])(message, read);
  return w && rowWriteText(message, w);
};

describe('a write to a row of ctx.row, told from the TypeError it throws (a review: the bare TypeError named neither)', () => {
  it.each<[string, string, string | null]>([
    ['V8: a CSV row', "Cannot assign to read only property 'name' of object '#<Object>'", 'accounts'],
    ["goja: a CSV row (k6's message has no object)", "Cannot assign to read only property 'name'", 'accounts'],
    [
      'a key only the JSON source has, nested',
      "Cannot assign to read only property 'tier' of object '#<Object>'",
      'carts',
    ],
    [
      "an array's element: the source whose rows hold arrays",
      'Cannot add property 1, object is not extensible',
      'carts',
    ],
    ['a sort of a frozen array', "Cannot assign to read only property '0' of object '[object Array]'", 'carts'],
    ['a delete', "Cannot delete property 'sku' of #<Object>", "it's"],
    // the object may be ctx.env or a frozen value of the scenario's own: no row has the key
    ['a key no row has', "Cannot assign to read only property 'HOME' of object '#<Object>'", null],
    ['another TypeError', "Cannot read properties of undefined (reading 'id')", null],
  ])('%s', (_, message, source) => {
    const out = text(message);
    if (source === null) expect(out).toBeNull();
    else
      expect(out).toContain(
        `: ${source === "it's" ? "ctx.row('it\\'s')" : `ctx.row('${source}')`} is shared and read-only`,
      );
  });

  it('names every source an added key may be of, the copy to make for a CSV row (a spread) and a nested JSON one (a deep copy)', () => {
    expect(text("Cannot assign to read only property 'name' of object '#<Object>'")).toBe(
      "Cannot assign to read only property 'name' of object '#<Object>': ctx.row('accounts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = { ...ctx.row('accounts') }",
    );
    expect(text('Cannot add property total, object is not extensible')).toBe(
      "Cannot add property total, object is not extensible: ctx.row('accounts') or ctx.row('carts') or ctx.row('it\\'s') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = { ...ctx.row('accounts') }",
    );
    const nested = rowWrites([carts])('Cannot add property 1, object is not extensible')!;
    expect(nested.copy).toBe("const r = JSON.parse(JSON.stringify(ctx.row('carts')))");
    expect(nested.why).toMatch(/a deep copy: .*k6 has no structuredClone/);
    const flat = rowWrites([prices])("Cannot assign to read only property 'cents'")!;
    expect([flat.copy, flat.why]).toEqual([
      "const r = { ...ctx.row('it\\'s') }",
      "a spread copies the row's top level (JSON.parse(JSON.stringify(ctx.row('it\\'s'))) copies nested values too)",
    ]);
  });

  it('in preflight, of the sources its sample arrival read; none read, or a scenario without data: as thrown', () => {
    const read = new Set(['carts']);
    expect(text('Cannot add property total, object is not extensible', read)).toMatch(
      /: ctx\.row\('carts'\) is shared and read-only/,
    );
    expect(text("Cannot assign to read only property 'name' of object '#<Object>'", read)).toBeNull();
    expect(text('Cannot add property total, object is not extensible', new Set())).toBeNull();
    expect(rowWrites([])("Cannot assign to read only property 'name'")).toBeNull();
  });
});
