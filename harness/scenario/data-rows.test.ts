import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { DataError, parseJsonRows, sampleRowSlot, spread } from './data-rows.ts';
import { parseCsv } from './csv-rows.ts';
import { SAMPLE_TRIES, sampleRowsKept } from './traffic.ts';
import { mixOrder, entryOf } from './mix-order.ts';
import { elementAt, scanJson } from './json-where.ts';

/** The DataError parsing `text` throws, as [line, message, fix]. */
function problem(parse: (text: string) => unknown, text: string): [number, string, string] {
  try {
    parse(text);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    return [err.line, err.message, err.fix];
  }
  throw new Error('no DataError');
}

describe('a CSV problem names its line and its own fix', () => {
  it.each<[string, string, number, string, RegExp]>([
    [
      'a name twice',
      'id,name,id\n1,x,2\n',
      1,
      'the header row names "id" twice (columns 1 and 3)',
      /^rename one of the two "id" columns$/,
    ],
    [
      'an empty name',
      'id,,name\n1,2,3\n',
      1,
      'column 2 of the header row has no name',
      /^name every column in the header row/,
    ],
    [
      'a blank first line',
      '\nid,name\n1,x\n',
      1,
      'the first line is blank: the header row must come first',
      /^remove the blank line before the header row$/,
    ],
    [
      'an unclosed quote',
      'id,note\n1,"open\n2,x\n',
      2,
      'the quote opened on line 2 is never closed',
      /^close the quote opened on line 2 /,
    ],
    [
      'a quote inside an unquoted field',
      'id,note\n1,say "hi"\n',
      2,
      'field 2 holds a double quote but is not quoted',
      /^quote the whole field and double the inner quote/,
    ],
    [
      'a space before the opening quote',
      'id,note\n1, "a, b"\n',
      2,
      'field 2 has a space before its opening quote',
      /^remove the space before the quote/,
    ],
    [
      'text after a closing quote',
      'id,note\n1,"a"b\n',
      2,
      'a quoted field is followed by text before its comma',
      /^put the comma or the line end right after the closing quote/,
    ],
    ['an empty file', '', 1, 'the file is empty', /^add a header row naming the columns, and rows below it$/],
    [
      'a header only',
      '\ufeffid,name\r\n',
      1,
      'the file has a header row but no rows',
      /^add rows below the header row$/,
    ],
    [
      'a ragged row',
      'id,name\n1,x\n2\n',
      3,
      'the row has 1 field, the header 2',
      /^give the CSV a header row and the same number of fields on every row/,
    ],
  ])('%s', (_, text, line, message, fix) => {
    const [l, m, f] = problem(parseCsv, text);
    expect([l, m]).toEqual([line, message]);
    expect(f).toMatch(fix);
  });

  it('keeps a column named __proto__ as an own property of every row, the prototype untouched', () => {
    const [row] = parseCsv('id,__proto__,constructor\n1,x,y\n');
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(row['__proto__']).toBe('x');
    expect(row.constructor).toBe('y');
    expect(Object.keys(row)).toEqual(['id', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });
});

describe('a JSON data problem is one line naming its place', () => {
  it.each<[string, string, number, string]>([
    [
      'a token where a value goes',
      '[\n  {"id": 1},\n  }\n]',
      3,
      'is not JSON at column 3: expected a value, found "}"',
    ],
    ['a missing comma', '[{"id": 1}\n {"id": 2}]', 2, `is not JSON at column 2: expected ',' or ']', found "{"`],
    [
      'a trailing comma in an object',
      '[{"id": 1,\n}]',
      2,
      'is not JSON at column 1: expected a member name in double quotes, found "}"',
    ],
    [
      'a cut-off file',
      '[{"id": 1},\n{"id"',
      2,
      `is not JSON at column 6: expected ':' after a member name, found the end of the file`,
    ],
    [
      'a line break in a string',
      '[{"note": "two\nlines"}]',
      1,
      'is not JSON at column 15: a line break or control character inside a string (write it as \\n)',
    ],
    [
      'text after the array',
      '[{"id": 1}]\n[{"id": 2}]',
      2,
      'is not JSON at column 1: text after the JSON value, found "["',
    ],
    ['a bad escape', '[{"a": "\\x"}]', 1, 'is not JSON at column 9: a bad escape in a string'],
    ['null', 'null', 0, 'must be a JSON array of objects, got null'],
    ['an object', '{"id": 1}', 0, 'must be a JSON array of objects, got an object'],
    ['an element that is a number', '[{"id":1},5]', 1, 'element 1 is a number, not an object'],
    ['an element on a later line', '[\n {"id": 1},\n {"id": 2},\n [3]\n]', 4, 'element 2 is an array, not an object'],
    ['a null element', '[{"id":1},\n\nnull]', 3, 'element 1 is null, not an object'],
    ['an empty array', '[]', 0, 'is an empty array'],
  ])('%s', (_, text, line, message) => {
    const [l, m, f] = problem(parseJsonRows, text);
    expect([l, m]).toEqual([line, message]);
    expect(m).not.toMatch(/\n/);
    expect(f).not.toBe('');
  });

  it('accepts a UTF-8 byte-order mark before the JSON, and counts columns after it', () => {
    expect(parseJsonRows('\ufeff[{"id": "1"}]')).toEqual([{ id: '1' }]);
    expect(problem(parseJsonRows, '\ufeff[}')[1]).toBe('is not JSON at column 2: expected a value, found "}"');
  });
});

describe('scanJson, the place finder, agrees with JSON.parse', () => {
  it.each([
    '[]',
    '[{"a": [1, -2.5e+3, 0, true, false, null, "\\u00e9\\n\\"", {}]}]',
    ' \t\r\n{"a": {"b": []}} ',
    '"x"',
    '[01]',
    '[1.]',
    '[-]',
    '[tru]',
    '{"a" 1}',
    '{"a": 1,}',
    '[1,]',
    '[1 2]',
    '["\\u12"]',
    '["\\q"]',
    '["a\tb"]',
    '',
    '[',
    '{',
    '["x',
    '[1]]',
    '{"a": 1}}',
    "['x']",
  ])('%j', (text) => {
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    expect(scanJson(text) === null).toBe(valid);
  });

  it('walks any depth without recursion, and finds where an element begins', () => {
    const deep = '['.repeat(200_000);
    expect(scanJson(deep)).toEqual({ index: 200_000, problem: 'expected a value, found the end of the file' });
    expect(elementAt('[ 1, {"a": [2, 3]},\n"x"]', 2)).toBe(20);
    expect(elementAt('[1]', 1)).toBe(-1);
  });
});

describe('ctx.pick spreads every mix entry over the whole key space', () => {
  it("an entry on every 4th arrival draws all of pick(100)'s keys, as often as the others", () => {
    // weights 1 and 3: entry 0 runs one arrival in four (the multiplicative hash gave it 25 keys)
    const order = mixOrder([1, 3]);
    const hits = new Map<number, number>();
    for (let seq = 1, n = 0; n < 10_000; seq++) {
      if (entryOf(order, seq) !== 0) continue;
      n++;
      const k = spread(seq, 100);
      hits.set(k, (hits.get(k) ?? 0) + 1);
    }
    expect(hits.size).toBe(100);
    // 100 draws a key on average: none under a third of that or over twice it
    for (const c of hits.values()) {
      expect(c).toBeGreaterThan(33);
      expect(c).toBeLessThan(200);
    }
  });

  it('is a pure function of the arrival, within the key space, the same in every run', () => {
    // pinned: a rerun (and the k6 bundle, which runs this very function) hits the same keys
    expect([1, 2, 999, 123_456_789].map((seq) => spread(seq, 100_000))).toEqual([94027, 36926, 22931, 10610]);
    for (const seq of [1, 2, 999, 123_456_789]) expect(spread(seq, 7)).toBeLessThan(7);
    expect(spread(5, 1)).toBe(0);
  });

  it("a salt gives an arrival's second pick a spread of its own: without one, its picks agree", () => {
    const agree = (a: (seq: number) => number, b: (seq: number) => number) => {
      let n = 0;
      for (let seq = 1; seq <= 10_000; seq++) if (a(seq) === b(seq)) n++;
      return n;
    };
    // unsalted, one hash of the arrival: the same key twice, and pick(1000) % 100 is pick(100)
    expect(
      agree(
        (q) => spread(q, 24),
        (q) => spread(q, 24),
      ),
    ).toBe(10_000);
    expect(
      agree(
        (q) => spread(q, 1000) % 100,
        (q) => spread(q, 100),
      ),
    ).toBe(10_000);
    // salted: as often alike as two independent draws (1 in 24, 1 in 100: 417 and 100 expected)
    for (const n of [
      agree(
        (q) => spread(q, 24),
        (q) => spread(q, 24, 'item 2'),
      ),
      agree(
        (q) => spread(q, 24, 'item 2'),
        (q) => spread(q, 24, 'item 3'),
      ),
    ]) {
      expect(n).toBeGreaterThan(300);
      expect(n).toBeLessThan(550);
    }
    const pct = agree(
      (q) => spread(q, 1000, 7) % 100,
      (q) => spread(q, 100),
    );
    expect(pct).toBeGreaterThan(50);
    expect(pct).toBeLessThan(160);
    // deterministic, a number taken as its text; pinned as the unsalted keys are (the k6 bundle runs this very function)
    expect(spread(999, 100_000, 'item 2')).toBe(spread(999, 100_000, 'item 2'));
    expect(spread(999, 100_000, 7)).toBe(spread(999, 100_000, '7'));
    expect([1, 2, 999].map((seq) => spread(seq, 100_000, 'item 2'))).toEqual([25724, 1794, 27842]);
  });

  it.each([null, {}, Number.NaN, Infinity])('refuses a salt of %s, naming the fix', (salt) => {
    expect(() => spread(1, 24, salt as unknown as string)).toThrow(
      /^ctx\.pick\(24, .*\): the salt must be a string or a finite number, e\.g\. ctx\.pick\(24, 'second item'\)/,
    );
  });

  it.each([0, -3, 2.5, Number.NaN, 2 ** 33])('refuses a key space of %s, naming the fix', (n) => {
    expect(() => spread(1, n)).toThrow(/ctx\.pick\(.*\): the key space must be a whole number from 1 to 4294967296/);
  });
});

describe('a sequential source walks every row for each mix entry', () => {
  it("an entry on every 4th arrival reads the 16 rows in turn (it had read 4 of them), and b's arrivals none", async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/sequential-rows.ts'),
      'http://127.0.0.1:9/',
      'r',
    );
    const rows: string[] = [];
    const keys = new Set<string>();
    for (let seq = 1; seq <= 4 * 400; seq++) {
      const e = s.arrivals.entryOf(seq);
      if (e.name !== 'a' || e.kind !== 'request') continue;
      const [, , key, row] = e.build(seq).path.split('/');
      rows.push(row);
      keys.add(key);
    }
    expect(rows).toHaveLength(400);
    // its k-th arrival takes row k - 1 (wrapping): every row, in the file's order
    expect(rows.slice(0, 17)).toEqual([...Array.from({ length: 16 }, (_, i) => `acct${i}`), 'acct0']);
    expect(keys.size).toBeGreaterThan(95);
  });
});

describe("a unique source with a readBy gives its rows to its readers' arrivals alone", () => {
  it('the readers take the rows in turn (3 of every 10 arrivals), an unlisted entry fails naming the fix, in preflight too', async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/reader-rows.ts'),
      'http://127.0.0.1:9/',
      'r',
    );
    // 100 rows, 20 kept for preflight's samples (4 sample arrivals, 5 tries each): 80 for the load,
    // which 267 arrivals' readers use up
    expect(s.data.accounts.usable).toBe(80);
    const rows: string[] = [];
    const audits: string[] = [];
    const outOfRows: string[] = [];
    for (let seq = 1; seq <= 330; seq++) {
      const e = s.arrivals.entryOf(seq);
      if (e.kind !== 'request' || e.name === 'read') continue;
      try {
        const [, kind, id] = e.build(seq).path.split('/');
        expect(kind).toBe(e.name);
        rows.push(id);
      } catch (err) {
        const m = (err as Error).message;
        if (e.name === 'audit') audits.push(m);
        else {
          expect(m).toMatch(
            /has 80 rows for the load and order 'unique': arrival \d+ \(reader \d+ of it\) has none left/,
          );
          outOfRows.push(/reader (\d+)/.exec(m)![1]);
        }
      }
    }
    // without the readBy every arrival took a row: the readers would have had 29 of them
    expect(rows).toEqual(Array.from({ length: 80 }, (_, i) => `acct${i}`));
    expect(outOfRows).toEqual(Array.from({ length: 19 }, (_, i) => String(81 + i)));
    expect(audits).toHaveLength(33);
    expect(audits[0]).toBe(
      'ctx.row("accounts") in entry "audit": the source\'s readBy lists "create", "renew", whose arrivals alone take its rows; add "audit" to data.accounts.readBy, or read the source only in the entries it lists',
    );
    // preflight's sample arrival of audit fails the same way, before any load; create's takes a kept row
    const audit = s.sample(3);
    expect(audit.kind === 'request' && (() => audit.build(1))).toThrow(/in entry "audit": the source's readBy lists/);
    const create = s.sample(1);
    expect(create.kind === 'request' && create.build(1).path).toBe('/create/acct81');
  });
});

// a review: a sample arrival the target failed (503) was tried again with its same unique row, sent
// three times in all, where a unique row goes to one arrival at most
describe("each try of preflight's sample arrivals takes a unique row of its own", () => {
  it('sampleRowSlot gives every try of every sample arrival another of the kept rows, the first tries the first', () => {
    for (const samples of [1, 2, 4, 7]) {
      const slots = [];
      for (let n = 0; n < samples; n++) for (let t = 0; t < SAMPLE_TRIES; t++) slots.push(sampleRowSlot(n, t, samples));
      expect([...slots].sort((a, b) => a - b)).toEqual(Array.from({ length: samples * SAMPLE_TRIES }, (_, i) => i));
      expect(Array.from({ length: samples }, (_, n) => sampleRowSlot(n, 0, samples))).toEqual(
        Array.from({ length: samples }, (_, n) => n),
      );
    }
  });

  it("the rows the tries read are all distinct, all of the kept rows, none the load's", async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/reader-rows.ts'),
      'http://127.0.0.1:9/',
      'r',
    );
    const kept = sampleRowsKept(s.traffic);
    expect(kept).toBe(4 * SAMPLE_TRIES);
    expect(s.data.accounts.usable).toBe(100 - kept);
    const read: string[] = [];
    // 'create' reads the source; every sample number (one per entry here) and every try of it
    for (let sampleNo = 0; sampleNo < 4; sampleNo++)
      for (let t = 0; t < SAMPLE_TRIES; t++) {
        const run = s.sample(1, sampleNo, undefined, t);
        if (run.kind === 'request') read.push(run.build(1).path.split('/')[2]);
      }
    expect(new Set(read).size).toBe(kept);
    expect(read.map((id) => Number(id.slice('acct'.length))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: kept }, (_, i) => 100 - kept + i),
    );
    // a try's row is the same whichever its arrival number: the try alone chooses it
    const again = s.sample(1, 2, undefined, 3);
    expect(again.kind === 'request' && again.build(7_919).path).toBe(`/create/${read[2 * SAMPLE_TRIES + 3]}`);
  });
});

describe('a unique source without a readBy and too few rows: the fix names the entries that read it', () => {
  it("the request entries whose sample request read it, and the transaction that may (a review: the demo's entry was suggested)", async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const { sourceReaders } = await import('../pipeline/sample-offline.ts');
    const { uniqueRowsProblem } = await import('./data-load.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/unique-unlisted.ts'),
      'http://127.0.0.1:9/',
      'r',
    );
    // built offline, nothing sent: a transaction's run needs the target's answers, so it is unknown
    expect(sourceReaders(s)).toEqual({ readers: { accounts: ['signup', 'renew'] }, unknown: ['pay'] });
    const p = uniqueRowsProblem(s.data, 5_000, true, s.traffic, true, () => sourceReaders(s))!;
    expect(p.hint).toMatch(
      /^add at least [\d,]+ rows, list the entries that read it in its readBy \(readBy: \['signup', 'renew'\]: the entries whose sample request read it, with "pay" if it reads it too; only their arrivals take rows\), lower the plan/,
    );
    expect(p.hint).not.toContain('create order');
    // plan says it alike, before any run
    const { cliInProcess } = await import('../../test/helpers/cli.ts');
    const plan = await cliInProcess([
      'plan',
      '--target',
      'http://127.0.0.1:9/x',
      '--scenario',
      'test/fixtures/scenarios/unique-unlisted.ts',
      '--max-rate',
      '500',
    ]);
    expect(plan.stderr).toContain(
      "in its readBy (readBy: ['signup', 'renew']: the entries whose sample request read it",
    );
  });
});
