import { describe, expect, it } from 'vitest';
import { contextFactory, type LoadedSource } from './context.ts';
import { ScenarioMistake } from './mistake.ts';
import { PlateauError } from '../errors.ts';
import { parseCsv } from './csv-rows.ts';
import { prepared, strictSpec } from './prepared.ts';
import type { RequestSpec } from './types.ts';

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

describe('ctx.sleep', () => {
  it('takes milliseconds >= 0 and refuses anything else with the fix, as the k6 runtime does (think-time.ts)', async () => {
    const slept: number[] = [];
    const ctx = contextFactory('run', '', {}, { sleep: async (ms) => void slept.push(ms) })(1);
    await ctx.sleep(20);
    await ctx.sleep(0);
    expect(slept).toEqual([20, 0]);
    expect(() => ctx.sleep('20' as unknown as number)).toThrow(
      'ctx.sleep("20"): give the think time in milliseconds, a number >= 0 (convert a setting read as text: Number(...))',
    );
    for (const bad of [-5, NaN, Infinity, undefined])
      expect(() => ctx.sleep(bad as number), String(bad)).toThrow(/a number >= 0$/);
    expect(slept).toEqual([20, 0]);
  });
  it("refuses a sleep longer than the transaction's deadline, or than any timer waits, naming the value, the bound and the fix", async () => {
    const slept: number[] = [];
    const sleep = async (ms: number) => void slept.push(ms);
    const ctx = contextFactory('run', '', {}, { sleep, transactionTimeoutMs: 30_000 })(1);
    expect(() => ctx.sleep(1e12)).toThrow(
      "ctx.sleep(1000000000000): give the think time in milliseconds, a number from 0 to 30000: a longer sleep outlasts the transaction's deadline (http.transactionTimeoutMs, think time included; raise it for longer think time)",
    );
    expect(() => ctx.sleep(30_001)).toThrow(/a number from 0 to 30000:/);
    await ctx.sleep(30_000);
    // no deadline given, or one past what a timer takes: the timer's bound (Node fires a longer delay after 1 ms)
    for (const transactionTimeoutMs of [undefined, 1e13]) {
      const free = contextFactory('run', '', {}, { sleep, transactionTimeoutMs })(1);
      expect(() => free.sleep(2 ** 31)).toThrow(
        'ctx.sleep(2147483648): give the think time in milliseconds, a number from 0 to 2147483647: no timer waits longer (about 24.8 days)',
      );
      await free.sleep(2 ** 31 - 1);
    }
    expect(slept).toEqual([30_000, 2 ** 31 - 1, 2 ** 31 - 1]);
  });

  it("carries the fix of what it was given, for preflight's fix line (a review: it read 'fix run(ctx, http) so that it does not throw')", () => {
    const ctx = contextFactory('run', '', {}, { sleep: async () => undefined })(1);
    const fixOf = (ms: unknown): string => {
      try {
        void ctx.sleep(ms as number);
      } catch (err) {
        expect(err).toBeInstanceOf(ScenarioMistake);
        return (err as ScenarioMistake).fix;
      }
      throw new Error(`ctx.sleep(${String(ms)}) did not throw`);
    };
    expect(fixOf(-5)).toMatch(/^give ctx\.sleep milliseconds >= 0: a think time computed below 0 \(-5\)/);
    expect(fixOf(NaN)).toMatch(/NaN comes of arithmetic on something that is not one/);
    expect(fixOf('20')).toBe('convert the think time read as text to a number: ctx.sleep(Number("20"))');
    expect(fixOf(Infinity)).toMatch(/a finite number of milliseconds/);
    expect(fixOf(1e12)).toMatch(/a value in seconds x 1000, not a timestamp\), within the transaction's deadline/);
    expect(fixOf(undefined)).toMatch(/\(it was given undefined\)$/);
  });
});

describe('ctx.hmacSha256', () => {
  const hintOf = (secrets: string[] | undefined): string => {
    const ctx = contextFactory('run', '', {}, { secrets })(1);
    try {
      ctx.hmacSha256('MY_KEY', 'body');
    } catch (err) {
      expect(err).toBeInstanceOf(PlateauError);
      expect((err as PlateauError).message).toBe('environment variable MY_KEY is not set');
      return (err as PlateauError).hint;
    }
    throw new Error('ctx.hmacSha256 did not throw');
  };

  it("of a key the scenario's secrets do not list: export it and list it (preflight checks only the listed)", () => {
    expect(hintOf(['OTHER'])).toBe(
      'export MY_KEY=<secret> before the run, and list it in the scenario\'s secrets (secrets: ["MY_KEY"]), so that preflight checks it before anything is sent and its value is scrubbed from every file and log',
    );
  });

  it('of a listed key: export it', () => {
    expect(hintOf(['MY_KEY'])).toBe('export MY_KEY=<secret> before the run (secrets come only from the environment)');
  });
});

describe("ctx.row in preflight's sample arrivals", () => {
  const csv: LoadedSource = {
    rows: [{ id: 'a-1', name: 'ann' }],
    order: 'sequential',
    file: '/s/accounts.csv',
    usable: 1,
    columns: ['id', 'name'],
  };
  it('refuses a column the CSV header does not have, naming the header; reads the rest as a row', () => {
    const sample = contextFactory('run', '', {}, { data: { accounts: csv }, sample: 0 })(1);
    const row = sample.row('accounts');
    expect(() => row.nmae).toThrow(
      'ctx.row("accounts").nmae: /s/accounts.csv has no column "nmae"; its columns are "id", "name" (a column only some files have: test "nmae" in the row first)',
    );
    // the test the message suggests does not throw
    expect('region' in row).toBe(false);
    expect([row.id, `${row.name}`, JSON.stringify(row), Object.keys(row).join()]).toEqual([
      'a-1',
      'ann',
      '{"id":"a-1","name":"ann"}',
      'id,name',
    ]);
    expect({ ...row }).toEqual({ id: 'a-1', name: 'ann' });
    // copied as the load's row is (a Proxy row had failed preflight: "#<Object> could not be cloned")
    expect(structuredClone(row)).toEqual({ id: 'a-1', name: 'ann' });
    expect(`${String(row.hasOwnProperty('id'))} ${Object.isFrozen(row)}`).toBe('true true');
    expect(() => {
      (row as Record<string, string>).name = 'bo';
    }).toThrow(/^Cannot assign to read only property 'name'/);
  });
  it('keeps a column named __proto__ as the load does (an assignment would set the prototype instead)', () => {
    const rows = parseCsv('id,__proto__\na-1,zz\n');
    for (const r of rows) Object.freeze(r);
    const src: LoadedSource = {
      rows,
      order: 'sequential',
      file: '/s/odd.csv',
      usable: 1,
      columns: ['id', '__proto__'],
    };
    const [load, sample] = [undefined, 0].map((n) =>
      contextFactory('run', '', {}, { data: { odd: src }, sample: n })(1).row('odd'),
    );
    for (const row of [load, sample]) {
      expect([Object.keys(row), JSON.stringify(row), row['__proto__']]).toEqual([
        ['id', '__proto__'],
        '{"id":"a-1","__proto__":"zz"}',
        'zz',
      ]);
      expect(Object.entries({ ...row })).toEqual([
        ['id', 'a-1'],
        ['__proto__', 'zz'],
      ]);
    }
  });
  it("a row returned as the request itself is read by plateau as the load reads it: only the code's own reads are checked", () => {
    const urls: LoadedSource = {
      rows: [Object.freeze({ url: '/items/1' })],
      order: 'sequential',
      file: '/s/urls.csv',
      usable: 1,
      columns: ['url'],
    };
    const [load, sample] = [undefined, 0].map((n) =>
      contextFactory('run', '', {}, { data: { urls }, sample: n })(1).row('urls'),
    );
    // request: (ctx) => ctx.row('urls'): prepared() reads method and body, which the CSV has no column for
    const built = (spec: unknown) =>
      prepared(strictSpec(spec as RequestSpec, 'request(ctx) returned '), 'http://127.0.0.1:8080', 0, false);
    expect(built(sample)).toEqual(built(load));
    expect(built(sample)).toMatchObject({ method: 'GET', path: '/items/1' });
    expect(() => sample.method).toThrow(/has no column "method"/);
  });
  it('leaves the load and JSON sources as they are (a JSON row may lack a key another has)', () => {
    expect(contextFactory('run', '', {}, { data: { accounts: csv } })(1).row('accounts').nmae).toBeUndefined();
    const json = { ...csv, columns: undefined };
    const sample = contextFactory('run', '', {}, { data: { accounts: json }, sample: 0 })(1);
    expect(sample.row('accounts').nmae).toBeUndefined();
  });
});

describe('ctx.uniqueId', () => {
  const ids = (runId: string, idKey: string | undefined, sample?: number) => {
    const f = contextFactory(runId, 'p1-', {}, { idKey, sample });
    return [0, 2, 7_919].map((seq) => f(seq).uniqueId());
  };

  it("builds 'seq' ids from the run's id key, not its run id: two runs given run id r2 send disjoint ids", () => {
    const a = ids('r2', 'r2-t5a3kx0q7c');
    const b = ids('r2', 'r2-t5a3kx9zzz');
    expect(a).toEqual(['p1-r2-t5a3kx0q7c-0', 'p1-r2-t5a3kx0q7c-2', 'p1-r2-t5a3kx0q7c-7919']);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    // preflight's sample arrivals too (their p<n>- after the prefix)
    expect(ids('r2', 'r2-t5a3kx0q7c', 0)[0]).toBe('p1-p0-r2-t5a3kx0q7c-0');
    // ctx.runId stays the run id
    expect(contextFactory('r2', '', {}, { idKey: 'r2-t5a3kx0q7c' })(1).runId).toBe('r2');
  });

  it('a generated run id is its own key: its ids keep their shape, prefix, run id, seq', () => {
    const runId = '20261129-172233-a1f3';
    expect(ids(runId, runId)).toEqual([`p1-${runId}-0`, `p1-${runId}-2`, `p1-${runId}-7919`]);
    // and by default (no key given), as a generated run id's
    expect(ids(runId, undefined)).toEqual(ids(runId, runId));
  });

  it("returns the same id for every call of one arrival; 'uuidv4' and 'uuidv7' are fresh each call", () => {
    const ctx = contextFactory('r2', '', {}, { idKey: 'r2-k' })(5);
    expect(ctx.uniqueId()).toBe(ctx.uniqueId('seq'));
    expect(ctx.uniqueId('uuidv4')).not.toBe(ctx.uniqueId('uuidv4'));
    expect(ctx.uniqueId('uuidv7')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
