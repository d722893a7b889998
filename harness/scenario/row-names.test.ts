import { rowAt } from './csv-rows.ts';
import { describe, expect, it } from 'vitest';
import type { LoadedSource } from './context.ts';
import { distinctValues, holdsValue, nameFromRow, nameFromRowText } from './row-names.ts';

const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj'];
const users: LoadedSource = {
  rows: PEOPLE.map((name, i) => ({
    id: `u${i}`,
    name,
    tier: ['free', 'plus', 'pro'][i % 3],
    city: 'Rome',
    n: i * 100,
  })),
  order: 'sequential',
  file: '/data/users.csv',
  usable: PEOPLE.length,
  columns: ['id', 'name', 'tier', 'city', 'n'],
};
const data = { users };
const read = (i: number) => [{ source: 'users', row: rowAt(users.rows, i)! }];

describe('names built from the text of a row the arrival read', () => {
  it('finds a value of a column of more than 10 distinct values, as a whole word of the name', () => {
    expect(nameFromRow(['t: first', 'user alice'], read(0), data)).toEqual({
      name: 'user alice',
      source: 'users',
      file: '/data/users.csv',
      column: 'name',
      value: 'alice',
      distinct: 11,
    });
    expect(nameFromRow(['alice: profile'], read(0), data)?.column).toBe('name');
  });

  it('lets a column of a few values name requests (a tier), and a column of one value (a city)', () => {
    expect(nameFromRow(['checkout free', 'Rome office'], read(0), data)).toBeNull();
  });

  it('looks only at the rows read, and at whole words: "bob" is not in "bobsled", a row not read is not looked at', () => {
    expect(nameFromRow(['bobsled'], read(1), data)).toBeNull();
    expect(nameFromRow(['user bob'], read(0), data)).toBeNull();
    expect(nameFromRow(['user bob'], read(1), data)?.value).toBe('bob');
  });

  it('skips values too short or without a letter (ids, numbers: the name rules judge those) and sources it has not', () => {
    const short: LoadedSource = { ...users, rows: PEOPLE.map((_, i) => ({ code: `${'ab'[i % 2]}${i}` })) };
    expect(nameFromRow(['code a0'], [{ source: 's', row: rowAt(short.rows, 0)! }], { s: short })).toBeNull();
    const digits: LoadedSource = { ...users, rows: PEOPLE.map((_, i) => ({ zip: String(10 + i) })) };
    expect(nameFromRow(['zone 10'], [{ source: 's', row: rowAt(digits.rows, 0)! }], { s: digits })).toBeNull();
    expect(nameFromRow(['user alice'], [{ source: 'gone', row: rowAt(users.rows, 0)! }], data)).toBeNull();
  });

  it('holdsValue: at either end, beside punctuation, never inside a word', () => {
    expect(holdsValue('alice', 'alice')).toBe(true);
    expect(holdsValue('get alice/orders', 'alice')).toBe(true);
    expect(holdsValue('malice', 'alice')).toBe(false);
    expect(holdsValue('alice2', 'alice')).toBe(false);
    expect(holdsValue('malice alice', 'alice')).toBe(true);
  });

  it('distinctValues stops counting at its limit', () => {
    expect(distinctValues(users.rows, 'name', 5)).toBe(5);
    expect(distinctValues(users.rows, 'tier', 100)).toBe(3);
    expect(distinctValues(users.rows, 'nope', 100)).toBe(0);
  });

  it('says which name, value, column and file, and why', () => {
    const found = nameFromRow(['user alice'], read(0), data)!;
    expect(nameFromRowText('checkout', found)).toBe(
      'transaction "checkout" named a request "user alice", which holds "alice" of column "name" of the row it read from /data/users.csv (data source "users"), a column of more than 10 distinct values: the name is built from data, and the run would have one per value',
    );
  });
});
