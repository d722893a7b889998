import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  entriesPerNumber,
  entryOf,
  groupCountOf,
  groupRanksOf,
  groupSeqOf,
  mixOrder,
  packedEntryOf,
  packedOrder,
  wholeWeights,
} from './mix-order.ts';
import { readByText, rowsTaken, scenarioProblems, trafficOf } from './traffic.ts';
import { nameProblem } from './names.ts';
import { DataError, drawSeed, parseJsonRows, rowIndex, seedOf } from './data-rows.ts';
import { parseCsv } from './csv-rows.ts';
import type { ResponseInfo, Scenario } from './types.ts';

const req = () => ({ url: '/' });

describe("the mix order (Tijdeman's smooth order over the global arrival number)", () => {
  /** The largest distance of a count from its share: over every prefix of three periods, and over every window of up to two. */
  function discrepancy(w: number[]): { prefix: number; window: number } {
    const o = mixOrder(w);
    const W = o.table.length;
    const share = o.whole.map((x) => x / W);
    const count = new Array<number>(w.length).fill(0);
    let prefix = 0;
    for (let n = 1; n <= 3 * W; n++) {
      count[entryOf(o, n)]++;
      for (let i = 0; i < w.length; i++) prefix = Math.max(prefix, Math.abs(count[i] - n * share[i]));
    }
    let window = 0;
    for (let a = 1; a <= W; a++) {
      const c = new Array<number>(w.length).fill(0);
      for (let n = a; n < a + 2 * W; n++) {
        c[entryOf(o, n)]++;
        for (let i = 0; i < w.length; i++) window = Math.max(window, Math.abs(c[i] - (n - a + 1) * share[i]));
      }
    }
    return { prefix, window };
  }
  const sets = [
    [70, 25, 5],
    [1, 1, 1],
    [3, 2, 1],
    [50, 30, 15, 5],
    [90, 9, 1],
    [0.5, 0.25, 0.25],
    // weights on which nginx's SWRR, the order before, passed one: 1.015 at arrival 131, 1.215 at 567, 1.0
    [1, 14, 174, 75, 1],
    [3, 1, 125, 41, 189, 3, 1],
    [50, 20, 10, 10, 5, 3, 1, 1],
  ];
  it.each(sets)(
    'weights %j: every prefix from arrival 1 within 1 - 1/(2k - 2) of its share, every window within two',
    (...w) => {
      const d = discrepancy(w);
      expect(d.prefix).toBeLessThanOrEqual(1 - 1 / (2 * w.length - 2) + 1e-9);
      expect(d.window).toBeLessThan(2);
    },
  );
  it('holds the bounds for random weights (2 to 8 entries)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 2, maxLength: 8 }), (w) => {
        const d = discrepancy(w);
        expect(d.prefix).toBeLessThanOrEqual(1 - 1 / (2 * w.length - 2) + 1e-9);
        expect(d.window).toBeLessThan(2);
      }),
      { numRuns: 60 },
    );
  });
  it("numbers a group's arrivals 1, 2, 3, ... in arrival order, and counts them, as a walk over the arrivals does", () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.integer({ min: 1, max: 40 }), { minLength: 2, maxLength: 6 })
          .chain((w) => fc.tuple(fc.constant(w), fc.array(fc.boolean(), { minLength: w.length, maxLength: w.length }))),
        ([w, inGroup]) => {
          const o = mixOrder(w);
          const { rank, perPeriod } = groupRanksOf(o, inGroup);
          let seen = 0;
          for (let n = 1; n <= 3 * o.table.length + 7; n++) {
            if (inGroup[entryOf(o, n)]) expect(groupSeqOf(perPeriod, rank, n)).toBe(++seen);
            expect(groupCountOf(o, inGroup, n)).toBe(seen);
          }
          expect(groupCountOf(o, inGroup, 0)).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });
  it('is smooth: 70/25/5 never sends the 5% entry twice within 20 arrivals, nor the 70% one 4 times in a row', () => {
    const o = mixOrder([70, 25, 5]);
    const seq = Array.from({ length: 200 }, (_, k) => entryOf(o, k + 1)).join('');
    expect(seq).not.toMatch(/0000/);
    expect(seq.match(/2/g)).toHaveLength(10);
    const at = [...seq].flatMap((c, i) => (c === '2' ? [i] : []));
    expect(Math.min(...at.slice(1).map((x, i) => x - at[i]))).toBe(20);
  });
  it("k6's shared numbers give every arrival the table's entry, each read a number, not a string k6 would walk", () => {
    // 1001/2500/3000: a period of 6,501; 100 entries: the most a mix has, 7 arrivals a number
    const many = Array.from({ length: 100 }, (_, i) => 1 + (i % 13));
    expect(entriesPerNumber(100)).toBe(7);
    expect(entriesPerNumber(3)).toBe(33);
    for (const w of [[70, 25, 5], [1.001, 2.5, 3], many, [1, 1]]) {
      const o = mixOrder(w);
      const W = o.table.length;
      const packed = packedOrder(o);
      expect(packed.every((v) => Number.isSafeInteger(v) && v >= 0)).toBe(true);
      expect(packed).toHaveLength(Math.ceil(W / entriesPerNumber(w.length)));
      // k6 keeps each element as its JSON and parses it on every read
      let reads = 0;
      const shared = new Proxy(
        packed.map((v) => JSON.stringify(v)),
        {
          get: (t, p) => {
            if (typeof p === 'string' && /^\d+$/.test(p)) {
              reads++;
              return JSON.parse(t[Number(p)]) as number;
            }
            return Reflect.get(t, p);
          },
        },
      ) as unknown as number[];
      const e = packedEntryOf(shared, w.length, W);
      for (let seq = -2; seq <= 2 * W + 2; seq++) expect(e(seq)).toBe(entryOf(o, seq));
      // two periods and a few arrivals either side: each number read again only as the arrivals come back to it
      expect(reads).toBeLessThanOrEqual(2 * packed.length + 3);
    }
  });
  it('makes weights whole, refuses what cannot be', () => {
    expect(wholeWeights([70, 25, 5])).toEqual([14, 5, 1]);
    expect(wholeWeights([0.5, 0.25])).toEqual([2, 1]);
    expect(wholeWeights([1, 0])).toMatch(/not a positive number/);
    expect(wholeWeights([1, 0.0001])).toMatch(/more than 3 decimals/);
    // under the whole-number tolerance: it would round to 0 (never sent), or all to 0 (no table)
    expect(wholeWeights([1e-10, 1])).toBe('weight 1e-10 is under 0.001, the finest share 3 decimals give');
    expect(wholeWeights([1e-10, 2e-10])).toMatch(/^weight 1e-10 is under 0.001/);
  });
});

describe('scenario problems, all at once, before load', () => {
  it('names every bad key, weight, entry and source', () => {
    const s = {
      name: 'x',
      mixx: 1,
      mix: {
        a: { weight: 0, request: req },
        b: { weight: 1, request: req, run: async () => undefined },
        'GET /orders/12345': { weight: 1, request: req },
        c: { weight: 1, requets: req },
        d: { weight: 1, run: async () => undefined, check: () => true },
      },
      data: { accounts: { csv: './a.csv', json: './a.json', order: 'once' } },
    } as unknown as Scenario;
    const p = scenarioProblems(s).join('\n');
    expect(p).toMatch(/unknown key `mixx` \(did you mean `mix`\?\)/);
    expect(p).toMatch(
      /mix entry "a": weight 0 is not a finite positive number: give it a share, e.g. weight: 25, or remove the entry to leave it out/,
    );
    expect(p).toMatch(/mix entry "b" has both `request` and `run`/);
    expect(p).toMatch(/"GET \/orders\/12345".*looks built from data/);
    expect(p).toMatch(/mix entry "c": unknown key `requets`/);
    expect(p).toMatch(/mix entry "d": a transaction checks each request in http.send/);
    expect(p).toMatch(/data source "accounts" needs exactly one of csv/);
    expect(p).toMatch(/order "once" is not one of sequential, unique, random/);
  });
  it("maps Gatling's feeder names onto plateau's orders, and lists every key of a source (a review: 'circular' was refused without them)", () => {
    const problems = (src: unknown) =>
      scenarioProblems({ name: 'x', request: req, data: { src } } as unknown as Scenario).join('\n');
    const mapping =
      "(Gatling's feeders: circular is 'sequential'; queue is 'unique', refused before load if the rows are too few, where Gatling fails mid-run; random is 'random'; shuffle is 'unique' over a file shuffled beforehand, its rows taken in file order)";
    expect(problems({ csv: './a.csv', order: 'circular' })).toBe(
      `data source "src": order "circular" is not one of sequential, unique, random: set order: 'sequential' ${mapping}`,
    );
    expect(problems({ csv: './a.csv', order: 'queue' })).toMatch(/^[^\n]*: set order: 'unique' \(Gatling's feeders/);
    expect(problems({ csv: './a.csv', order: 'Shuffle' })).toMatch(/: set order: 'unique' \(/);
    expect(problems({ csv: './a.csv', order: 'RANDOM' })).toMatch(/: set order: 'random' \(/);
    // a name of neither: the mapping alone; a name of the prototype's is no Gatling feeder
    expect(problems({ csv: './a.csv', order: 'once' })).toBe(
      `data source "src": order "once" is not one of sequential, unique, random ${mapping}`,
    );
    expect(problems({ csv: './a.csv', order: 'constructor' })).not.toMatch(/set order/);
    expect(problems({ csv: './a.csv', strategy: 'queue' })).toBe(
      "data source \"src\": unknown key `strategy`: a source has csv or json (its file), order, readBy (order 'unique', in a mix) and seed (order 'random')",
    );
  });
  it("a random source's seed is a text or a finite number, on order 'random' only; each mistake names the fix", () => {
    const problems = (src: unknown) =>
      scenarioProblems({ name: 'x', request: req, data: { src } } as unknown as Scenario).join('\n');
    expect(problems({ csv: './a.csv', order: 'random', seed: 'checkout-ab' })).toBe('');
    expect(problems({ json: './a.json', order: 'random', seed: 42 })).toBe('');
    expect(problems({ csv: './a.csv', order: 'random', seed: { run: 'a' } })).toBe(
      'data source "src": seed is an object, not a string or a finite number: give one, e.g. seed: \'checkout-ab\' (the random rows follow it; two runs given one seed draw the same rows)',
    );
    expect(problems({ csv: './a.csv', order: 'random', seed: true })).toMatch(/seed is a boolean, not a string/);
    expect(problems({ csv: './a.csv', order: 'random', seed: NaN })).toMatch(/seed is NaN, not a string or a finite/);
    expect(problems({ csv: './a.csv', order: 'random', seed: '' })).toBe(
      'data source "src": seed is empty: give a text, e.g. seed: \'checkout-ab\', or leave it out to draw by the run id',
    );
    expect(problems({ csv: './a.csv', seed: 'x' })).toBe(
      "data source \"src\": seed is for order 'random' (the draws follow it); a sequential source draws no row at random: remove seed, or set order: 'random'",
    );
    expect(problems({ csv: './a.csv', order: 'unique', seed: 7 })).toMatch(/a unique source draws no row at random/);
    // a misspelt key is told the one meant
    expect(problems({ csv: './a.csv', order: 'random', sed: 1 })).toMatch(
      /unknown key `sed` \(did you mean `seed`\?\)/,
    );
  });
  it('a readBy names entries of the mix, on a unique source; each mistake names the fix', () => {
    const mix = { read: { weight: 3, request: req }, create: { weight: 1, request: req } };
    const problems = (data: unknown, m: unknown = mix) =>
      scenarioProblems({ name: 'x', mix: m, data } as unknown as Scenario).join('\n');
    expect(problems({ a: { csv: './a.csv', order: 'unique', readBy: ['create'] } })).toBe('');
    expect(problems({ a: { csv: './a.csv', order: 'unique', readBy: ['create', 'creat'] } })).toBe(
      'data source "a": readBy names "creat", not an entry of the mix (its entries: "read", "create")',
    );
    expect(problems({ a: { csv: './a.csv', order: 'unique', readBy: 'create' } })).toMatch(
      /^data source "a": readBy must be a list of the mix entries that read it, e\.g\. readBy: \['read'\] \(its entries: "read", "create"\)$/,
    );
    expect(problems({ a: { csv: './a.csv', order: 'unique', readBy: [] } })).toMatch(/readBy must be a list/);
    // an entry's own quote is escaped, as the scenario would write it
    expect(readByText(["it's", 'a\\b'])).toBe("readBy: ['it\\'s', 'a\\\\b']");
    expect(problems({ a: { csv: './a.csv', readBy: ['create'] } })).toBe(
      "data source \"a\": readBy is for order 'unique' (only the listed entries' arrivals take its rows); a sequential source gives every entry its rows already: remove readBy, or set order: 'unique'",
    );
    expect(
      scenarioProblems({
        name: 'x',
        request: req,
        data: { a: { csv: './a.csv', order: 'unique', readBy: ['x'] } },
      } as unknown as Scenario).join('\n'),
    ).toMatch(/^data source "a": readBy names entries of a mix, and this scenario has none/);
    // what the plan needs: 1 of every 4 arrivals reads it
    const t = trafficOf({ name: 'x', mix, data: {} } as unknown as Scenario);
    expect(rowsTaken(t, ['create'], 1000)).toBe(250);
    expect(rowsTaken(t, undefined, 1000)).toBe(1000);
  });
  it('a request scenario is one entry named after it, recorded without names', () => {
    const t = trafficOf({ name: 'create order', request: req });
    expect(t.entries.map((e) => e.name)).toEqual(['create order']);
    expect(t.byName).toBe(false);
    expect(trafficOf({ mix: { a: { weight: 1, run: async () => undefined } } }).byName).toBe(true);
  });
  it('knows which checks read the body', () => {
    const t = trafficOf({
      mix: {
        a: { weight: 1, request: req, check: (r) => r.status === 200 },
        b: { weight: 1, request: req, check: (r) => typeof r.json().id === 'string' },
        c: { weight: 1, request: req, check: ({ body }) => body.length > 0 },
        d: { weight: 1, request: req, check: (r) => r.text() === 'ok' },
        // the word in a message is no read of the body: only text( is
        e: { weight: 1, request: req, check: (r) => r.status === 200 || 'got no text' },
      },
    });
    expect(t.entries.map((e) => e.checkReadsBody)).toEqual([false, true, true, true, false]);
  });
  it('refuses names built from data', () => {
    expect(nameProblem('read order')).toBeNull();
    expect(nameProblem('GET /v1/users')).toBeNull();
    expect(nameProblem('order 4711')).toMatch(/built from data/);
    expect(nameProblem('order 0b1e2c3d-1111-4aaa-8bbb-123456789abc')).toMatch(/built from data/);
    expect(nameProblem(7)).toMatch(/must be a string/);
  });
});

describe('data rows', () => {
  it('parses RFC 4180 CSV: quotes, commas, doubled quotes, CRLF, line breaks in a field', () => {
    const rows = parseCsv('\ufeffid,note\r\n1,"a, ""b"""\r\n2,"two\nlines"\n3,plain\n');
    expect(rows).toEqual([
      { id: '1', note: 'a, "b"' },
      { id: '2', note: 'two\nlines' },
      { id: '3', note: 'plain' },
    ]);
  });
  it('parses empty and all-quote fields, CR-only records, blank lines and a trailing empty field', () => {
    expect(parseCsv('a,b,c\r"",""""," x "\r\r1,,\n')).toEqual([
      { a: '', b: '"', c: ' x ' },
      { a: '1', b: '', c: '' },
    ]);
    expect(parseCsv('a,b\n1,')).toEqual([{ a: '1', b: '' }]);
    // one column: a quoted empty field is a row with an empty value (RFC 4180), a bare blank line is none
    expect(parseCsv('id\n""\n\n1\n')).toEqual([{ id: '' }, { id: '1' }]);
  });
  it('names the line of a ragged row, an unclosed quote and an empty file', () => {
    const line = (text: string) => {
      try {
        parseCsv(text);
      } catch (err) {
        return [(err as DataError).line, (err as Error).message];
      }
      return null;
    };
    expect(line('id,a\n1,2\n3\n')).toEqual([3, 'the row has 1 field, the header 2']);
    // lines inside quoted fields count; the first problem in the file is the one named
    expect(line('id,a\n1,"x\ny\nz"\n2\n"open\n')).toEqual([5, 'the row has 1 field, the header 2']);
    expect(line('id,a\n1,"x"y\n')).toEqual([2, 'a quoted field is followed by text before its comma']);
    expect(line('id,a\n1,x"y"\n')).toEqual([2, 'field 2 holds a double quote but is not quoted']);
    expect(line('id\n"open\n')).toEqual([2, 'the quote opened on line 2 is never closed']);
    expect(line('')?.[1]).toMatch(/empty/);
    expect(line('id\n')?.[1]).toMatch(/no rows/);
    expect(() => parseJsonRows('[]')).toThrow(/empty array/);
    expect(() => parseJsonRows('[1]')).toThrow(/element 0 is a number, not an object/);
  });
  it('picks rows by order: sequential wraps, unique never repeats, random is seeded by the run id', () => {
    expect([1, 2, 3, 4].map((s) => rowIndex('sequential', s, 3, 0))).toEqual([0, 1, 2, 0]);
    expect([1, 3, 4].map((s) => rowIndex('unique', s, 3, 0))).toEqual([0, 2, null]);
    const a = Array.from({ length: 50 }, (_, i) => rowIndex('random', i + 1, 10, seedOf('run-a')));
    expect(Array.from({ length: 50 }, (_, i) => rowIndex('random', i + 1, 10, seedOf('run-a')))).toEqual(a);
    expect(Array.from({ length: 50 }, (_, i) => rowIndex('random', i + 1, 10, seedOf('run-b')))).not.toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(6);
  });
  it("draws a random source by its seed where it has one, taken as its text: seed 'r1' draws what run r1 drew without one", () => {
    const draws = (seed: number) => Array.from({ length: 50 }, (_, i) => rowIndex('random', i + 1, 10, seed));
    expect(drawSeed('run-a', undefined)).toBe(seedOf('run-a'));
    expect(draws(drawSeed('run-a', 'ab'))).toEqual(draws(drawSeed('run-b', 'ab')));
    expect(draws(drawSeed('run-a', 'run-b'))).toEqual(draws(drawSeed('run-b', undefined)));
    expect(drawSeed('run-a', 42)).toBe(drawSeed('run-b', '42'));
    expect(draws(drawSeed('run-a', 'ab'))).not.toEqual(draws(drawSeed('run-a', undefined)));
  });
});

describe('a body cut at http.maxBodyBytes', () => {
  it('a check that names res.truncated keeps the body', () => {
    const s = { request: req, check: (r: ResponseInfo) => !r.truncated } as Scenario;
    expect(trafficOf(s).entries[0].checkReadsBody).toBe(true);
  });
});

describe('more scenario problems', () => {
  it('weights that cannot be made whole are a problem naming the fix', () => {
    const s = { mix: { a: { weight: 100 / 3, request: req }, b: { weight: 1, request: req } } } as Scenario;
    expect(scenarioProblems(s).join('\n')).toMatch(/more than 3 decimals; round them to 3 decimals/);
  });
});

describe("a transaction's answers keep what its code reads", () => {
  it('the run names body/json or headers: kept; read otherwise (a helper): the fix, not an empty value', async () => {
    const t = trafficOf({
      mix: {
        reads: { weight: 1, run: async (_c, http) => void (await http.send('x', { url: '/' })).json() },
        blind: { weight: 1, run: async (_c, http) => void (await http.send('y', { url: '/' })).ok },
      },
    });
    expect(t.entries.map((e) => e.runReads)).toEqual([
      { body: true, headers: false },
      { body: false, headers: false },
    ]);
    const { requestArrivals } = await import('./arrivals.ts');
    const { newOutcome } = await import('../engine/outcome.ts');
    const a = requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null }));
    const o = newOutcome();
    o.status = 200;
    const blind = a.sent(o, null, { body: false, headers: false });
    expect(blind.ok).toBe(true);
    expect(() => blind.json()).toThrow(
      /the response body was not kept for this transaction: .*write made.body or made.json\(\) in the run/,
    );
    expect(() => blind.headers).toThrow(/the response headers were not kept for this transaction/);
  });
});

describe('problems a review of broken scenarios found, each with its fix', () => {
  const problems = (s: unknown) => scenarioProblems(s as Scenario);
  const mixOf = (entries: Record<string, unknown>) => problems({ name: 'x', mix: entries });

  it('a weight of NaN or Infinity is printed as such, not as JSON null', () => {
    const p = mixOf({
      a: { weight: NaN, request: req },
      b: { weight: Infinity, request: req },
      c: { weight: '70', request: req },
      d: { weight: -5, request: req },
    });
    expect(p).toEqual([
      'mix entry "a": weight NaN is not a finite positive number: give it a share, e.g. weight: 25',
      'mix entry "b": weight Infinity is not a finite positive number: give it a share, e.g. weight: 25',
      'mix entry "c": weight "70" is not a number: give it a share, e.g. weight: 25',
      'mix entry "d": weight -5 is not a finite positive number: give it a share, e.g. weight: 25, or remove the entry to leave it out',
    ]);
  });

  it('weights too fine, or whose whole sum is too large, are refused with a fix that can be followed', () => {
    expect(mixOf({ tiny: { weight: 1e-10, request: req }, b: { weight: 1, request: req } })).toEqual([
      "the mix's weights (1e-10, 1): weight 1e-10 is under 0.001, the finest share 3 decimals give; raise it to 0.001 or more, or scale every weight up by one factor (weights are ratios)",
    ]);
    // counts pasted from production logs: coprime, so no smaller whole numbers have their ratio
    expect(mixOf({ read: { weight: 812345, request: req }, write: { weight: 190233, request: req } })).toEqual([
      "the mix's weights (812345, 190233): the weights made whole sum to 1002578, over 1000000; round them to a coarser ratio, e.g. percentages (81, 19)",
    ]);
  });

  it('a weight that is an object or null says so in words ("an object", not "a object")', () => {
    expect(mixOf({ a: { weight: {}, request: req }, b: { weight: null, request: req } })).toEqual([
      'mix entry "a": weight an object is not a number: give it a share, e.g. weight: 25',
      'mix entry "b": weight null is not a number: give it a share, e.g. weight: 25',
    ]);
  });

  it('an empty mix is one problem, not also a line about its weights', () => {
    expect(mixOf({})).toEqual(['`mix` has no entries: give it at least one { weight, request } or { weight, run }']);
  });

  it('a mix over 100 entries says how to merge them', () => {
    const entries = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [
        `entry ${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`,
        { weight: 1, request: req },
      ]),
    );
    expect(mixOf(entries)).toEqual([
      expect.stringMatching(
        /^`mix` has 101 entries, over 100 .*: merge entries, making the variants of a request one entry whose request\(ctx\) varies with ctx \(url: `\/items\/\$\{ctx\.pick\(500\)\}`/,
      ),
    ]);
  });

  it('a misspelt key gets the key it most likely meant, at the top, in an entry and in a data source', () => {
    const p = problems({
      name: 'x',
      Mix: {},
      requets: req,
      mix: { a: { wieght: 1, weight: 1, request: req, chek: () => true } },
      data: { accounts: { cvs: './a.csv', csv: './a.csv' } },
    }).join('\n');
    expect(p).toMatch(/^unknown key `Mix` \(did you mean `mix`\?\)/m);
    expect(p).toMatch(/^unknown key `requets` \(did you mean `request`\?\)/m);
    expect(p).toMatch(/^mix entry "a": unknown key `wieght` \(did you mean `weight`\?\)/m);
    expect(p).toMatch(/^mix entry "a": unknown key `chek` \(did you mean `check`\?\)/m);
    expect(p).toMatch(/^data source "accounts": unknown key `cvs` \(did you mean `csv`\?\)/m);
    // nothing close: no guess
    expect(mixOf({ a: { weight: 1, request: req, timeout: 5 } })).toEqual([
      'mix entry "a": unknown key `timeout`: an entry has weight and request (+ check) or run',
    ]);
  });

  it('ids and secrets are checked: unknown keys, wrong types, each with the fix', () => {
    expect(problems({ name: 'x', request: req, ids: { prefx: 'a-', maxLength: 'x' }, secrets: 'KEY' })).toEqual([
      '`ids`: unknown key `prefx` (did you mean `prefix`?): ids has prefix and maxLength',
      '`ids.maxLength` "x" is not a whole number above 0: give the length of the target\'s strictest id column, e.g. maxLength: 50',
      "`secrets` is a string: give an array of environment variable names, secrets: ['KEY']",
    ]);
    expect(problems({ request: req, ids: 'ord-', secrets: ['A', 7, ''] })).toEqual([
      '`ids` is "ord-": give an object, ids: { prefix: \'ord-\', maxLength: 50 }',
      "`secrets[1]` is 7: each is the name of an environment variable, e.g. 'API_KEY'",
      "`secrets[2]` is empty: each is the name of an environment variable, e.g. 'API_KEY'",
    ]);
    expect(problems({ request: req, ids: { prefix: 1, maxLength: 1.5 } })).toHaveLength(2);
    // a string that may be the secret itself is not echoed
    expect(problems({ request: req, secrets: 'sk_live_abc' })[0]).not.toContain('sk_live');
    expect(problems({ request: req, ids: { prefix: 'ord-', maxLength: 50 }, secrets: ['KEY'] })).toEqual([]);
  });

  it("the scenario's own name is refused as an entry's is: blank, not a string, built from data", () => {
    for (const [name, why] of [
      ['   ', /a name must not be empty/],
      [42, /a name must be a string, got number/],
      ['order 12345', /name "order 12345" has a number of 3 or more digits/],
    ] as const) {
      expect(problems({ name, request: req })).toEqual([
        expect.stringMatching(new RegExp(`^\`name\`: ${why.source}.*; name the scenario by what it loads`)),
      ]);
    }
    expect(problems({ name: 'expect 200', request: req })).toEqual([]);
  });
});
