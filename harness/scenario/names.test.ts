import { describe, expect, it } from 'vitest';
import { dataShape, MAX_NAMES, MAX_NAMES_OF_A_SHAPE, NameBook, nameProblem } from './names.ts';

const book = () =>
  new NameBook([
    { name: 'read order', transaction: false },
    { name: 'checkout', transaction: true },
  ]);

describe('the names http.send may use (NameBook)', () => {
  it('admits a fixed name, and the same name again', () => {
    const b = book();
    expect(b.problem('checkout: create')).toBeNull();
    expect(b.problem('checkout: create')).toBeNull();
  });

  it("refuses an entry's own name, and a name built from data with the fix", () => {
    const b = book();
    expect(b.problem('checkout')).toMatch(/is the name of an entry of the mix/);
    expect(b.problem('order 4711')).toMatch(/3 or more digits.*give each request a fixed name/);
  });

  it(`admits ${MAX_NAMES_OF_A_SHAPE} names that differ only in their numbers (a bounded loop), and refuses the next`, () => {
    const b = book();
    for (let page = 1; page <= MAX_NAMES_OF_A_SHAPE; page++) expect(b.problem(`page ${page}`)).toBeNull();
    expect(b.problem(`page ${MAX_NAMES_OF_A_SHAPE + 1}`)).toMatch(
      /"page 11" differs only in its numbers from 10 names before it \("page 1", "page 2", "page 3", \.\.\.\): it looks built from data; give each request a fixed name/,
    );
    // those admitted stay admitted; names of another shape are counted apart
    expect(b.problem('page 3')).toBeNull();
    expect(b.problem('v2 orders')).toBeNull();
    expect(b.problem('v3 orders')).toBeNull();
  });

  it('refuses a name made of the arrival number before its numbers reach 3 digits', () => {
    const b = book();
    const refused: number[] = [];
    // one transaction in 14 arrivals naming its request after the arrival: item 9, item 23, ...
    for (let seq = 9; seq < 100; seq += 14) if (b.problem(`item ${seq}`) !== null) refused.push(seq);
    expect(refused).toEqual([]); // 7 of them: under the bound
    for (let seq = 2; seq < 100; seq += 3) if (b.problem(`item ${seq}`) !== null) refused.push(seq);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBe(11); // the 11th distinct name of the shape
  });

  it(`refuses the name one past ${MAX_NAMES} in the run`, () => {
    const b = book();
    const letters = (i: number) => String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26));
    for (let i = 0; i < MAX_NAMES - 2; i++) expect(b.problem(`step ${letters(i)}`)).toBeNull();
    expect(b.problem('one more')).toMatch(/one past 100 names/);
  });
});

describe('a name with an HTTP status in it (nameProblem)', () => {
  it('is fixed: a status on its own is no number built from data; an id in a path, or 4 digits, still is', () => {
    for (const name of ['expect 200', 'redirect 302 to login', '404']) expect(nameProblem(name)).toBeNull();
    for (const name of ['GET /orders/404', 'order 4711', 'page 600', 'order 200-1', 'v200'])
      expect(nameProblem(name)).toMatch(/3 or more digits/);
  });
  it('refuses a control character (a newline breaks the plan, the rows and a CSV)', () => {
    expect(nameProblem('read\norder')).toBe('name "read\\norder" holds a control character (a newline, a tab)');
    expect(nameProblem('read\torder')).toMatch(/control character/);
    expect(nameProblem('read order')).toBeNull();
  });
  it('reads only a registered status as one: `get ${ctx.pick(500)}` is data at 104 and 430 as at 4711', () => {
    for (const name of ['get 104', 'get 430', 'order 199', 'expect 250'])
      expect(nameProblem(name), name).toMatch(/3 or more digits/);
    for (const name of ['expect 201', 'expect 429', 'teapot 418', 'gone 410', 'early 103'])
      expect(nameProblem(name)).toBeNull();
    // two sample arrivals of one transaction: the same shape, so preflight calls the name built from data
    expect(dataShape('get 104')).toBe(dataShape('get 430'));
    expect(dataShape('expect 200')).not.toBe(dataShape('expect 201'));
  });
  it("admits a standard's number and an operation's version in a name; ids in any form stay refused", () => {
    for (const name of [
      'sha256 sign',
      'ISO8601 date',
      'parse RFC3339',
      'createUserAccountV2',
      'loadBalancerHealthCheck1',
      // a campaign's or a period's year (a user's review, 12-07: 'black-friday-2025' was refused)
      'black-friday-2025',
      'report 2024',
      'Q4 2025 totals',
      'sale_1999',
      'summary (2026)',
      'calendar 2025-12',
    ])
      expect(nameProblem(name), name).toBeNull();
    for (const name of [
      'order 12345',
      'order12345',
      'GET /o/a1b2c3d4e5f6a7b8',
      'token 5f2b9c0d1e3a4b6c',
      'abcdefghijklmn123',
      // codes of letters and digits are data: a flight, a SKU
      'flight AK1000',
      'sku BX4412',
      // a year-like number that is no year, or one in a path or glued to a word, is an id
      'order 2100',
      'order 1969',
      'GET /orders/2025',
      'order 2025.5',
      'order 2025-123',
      'order2025x',
    ])
      expect(nameProblem(name), name).toMatch(/built from data/);
  });
});
