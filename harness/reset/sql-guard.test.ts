import { describe, expect, it } from 'vitest';
import { guardProblems, hasSecondStatement } from './sql-guard.ts';
import { atDeadline, planBatches } from './sql.ts';

const guard = { tables: ['orders', 'accounts'], databasePattern: '^plateau_test$' };

describe('the guard', () => {
  it.each([
    ['TiDB: SPLIT TABLE of a guarded table', 'SPLIT TABLE orders BETWEEN (0) AND (1000000) REGIONS 16', []],
    [
      'TiDB: SPLIT TABLE of another table',
      'SPLIT TABLE users BETWEEN (0) AND (100) REGIONS 4',
      [/table "users" is not in reset guard.tables/],
    ],
    [
      'OceanBase: ALTER TENANT names no table: refused without allowAdmin',
      "ALTER TENANT app SET primary_zone = 'z1;z2,z3'",
      [/the admin statement ALTER names no guarded table: set guard.allowAdmin: true/],
    ],
    ['ALTER TABLE of a guarded table', 'ALTER TABLE orders ADD COLUMN note text', []],
    [
      'a second statement after a ";"',
      'UPDATE orders SET v = 1; DROP DATABASE prod',
      [/holds more than one statement/],
    ],
    ['a ";" inside a string is one statement', "UPDATE orders SET note = 'a;b'", []],
    ['a trailing ";" is one statement', 'TRUNCATE orders;', []],
    ['DROP is never allowed', 'DROP TABLE orders', [/DROP is not allowed in a reset/]],
    ['a table function after FROM is no table', 'INSERT INTO orders (id) SELECT g FROM generate_series(1, 90) g', []],
    [
      'a table after FROM is one',
      'INSERT INTO orders (id) SELECT id FROM users',
      [/table "users" is not in reset guard.tables/],
    ],
    ['TRUNCATE of a list of guarded tables', 'TRUNCATE TABLE ONLY orders, "accounts" RESTART IDENTITY', []],
    [
      'TRUNCATE of a list: every table is read, not the first only',
      'TRUNCATE orders, customers',
      [/table "customers" is not in reset guard.tables/],
    ],
    [
      "MySQL's multi-table DELETE: the tables after FROM, aliased",
      'DELETE o, c FROM orders AS o, customers c WHERE o.id = c.id',
      [/table "customers"/],
    ],
    [
      'a FROM list after a table function',
      'INSERT INTO orders SELECT g FROM generate_series(1, 9) g, users',
      [/"users"/],
    ],
    [
      'a name qualified by another database (MySQL) or schema is not the guarded table',
      'TRUNCATE prod.orders',
      [/table "prod.orders" is not in reset guard.tables .*as written, qualified/],
    ],
    ['a "--" inside a string is no comment', "UPDATE accounts SET note = '--' WHERE id = 1", []],
    [
      'a second statement after a string holding "--"',
      "UPDATE accounts SET note = '--'; DROP TABLE customers",
      [/holds more than one statement/],
    ],
    [
      "a second statement after PostgreSQL's $$ string holding a quote",
      "UPDATE accounts SET note = $$it's$$; DROP TABLE customers",
      [/holds more than one statement/],
    ],
    [
      "MySQL's executable comment is read: the server runs it",
      'DELETE FROM orders /*!, customers USING orders, customers */',
      [/table "customers"/],
    ],
    [
      "MySQL's # comment: a quote after it starts no string there",
      "DELETE o, c FROM orders o # '\n, customers c",
      [/table "customers"/],
    ],
    [
      'a statement MySQL reads as another verb',
      '/*!TRUNCATE customers */ SELECT 1',
      [/reads as SELECT in standard SQL but as TRUNCATE in MySQL/],
    ],
    [
      'a WITH query read from is no table',
      'INSERT INTO orders WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 9) SELECT x FROM c',
      [],
    ],
    [
      "a WITH query's name as the target is the table (PostgreSQL deletes from it)",
      'WITH customers AS (SELECT 1) DELETE FROM customers',
      [/table "customers" is not in reset guard.tables/],
    ],
    ['a plain comment is not read', 'DELETE FROM orders /* customers */ -- users', []],
    [
      'TRUNCATE ... CASCADE empties tables the guard cannot see',
      'TRUNCATE orders CASCADE',
      [/TRUNCATE \.\.\. CASCADE also empties every table whose foreign keys reference these/],
    ],
  ] as const)('%s', (_what, sql, expected) => {
    const problems = guardProblems([sql], guard, 'plateau_test');
    expect(problems).toHaveLength(expected.length);
    expected.forEach((re, i) => expect(problems[i]).toMatch(re));
  });

  it('lets an admin statement that names no table run with allowAdmin, and only on a database the pattern matches', () => {
    const sql = "ALTER TENANT app SET primary_zone = 'z1'";
    expect(guardProblems([sql], { ...guard, allowAdmin: true }, 'plateau_test')).toEqual([]);
    expect(guardProblems([sql], { ...guard, allowAdmin: true }, 'production')).toEqual([
      expect.stringMatching(/ALTER refused: database "production" does not match guard.databasePattern/),
    ]);
  });

  it('runs nothing on a database the pattern does not match: an UPDATE or INSERT overwrites it too', () => {
    const statements = ['UPDATE accounts SET balance = 100', "INSERT INTO orders VALUES (1, 'a')", 'SELECT 1'];
    expect(guardProblems(statements, guard, 'plateau_test')).toEqual([]);
    expect(guardProblems(statements, guard, 'production')).toEqual([
      expect.stringMatching(
        /^statement 1 .*UPDATE refused: database "production" does not match guard.databasePattern/,
      ),
      expect.stringMatching(/^statement 2 .*INSERT refused: database "production"/),
      expect.stringMatching(/^statement 3 .*SELECT refused: database "production"/),
    ]);
  });

  it('catches a second statement whichever way the database reads a backslash in a string', () => {
    // standard SQL: 'C:\' is a whole string, and DROP follows; MySQL: the quote is escaped
    expect(hasSecondStatement("UPDATE orders SET p = 'C:\\'; DROP DATABASE prod; -- '")).toBe(true);
    expect(hasSecondStatement("UPDATE orders SET p = 'it''s; fine'")).toBe(false);
  });
});

describe('transactions', () => {
  const mysqlImplicit = (s: string) => /^(TRUNCATE|ALTER|SPLIT)\b/i.test(s);
  it('groups the statements between implicit commits into one transaction each; those commits run alone', () => {
    const statements = [
      'UPDATE accounts SET v = 0',
      'DELETE FROM orders',
      'TRUNCATE orders',
      'INSERT INTO orders VALUES (1)',
      'UPDATE orders SET v = 1',
    ];
    expect(planBatches(statements, mysqlImplicit)).toEqual([
      { indices: [0, 1], transaction: true },
      { indices: [2], transaction: false },
      { indices: [3, 4], transaction: true },
    ]);
    expect(planBatches(statements, () => false)).toEqual([{ indices: [0, 1, 2, 3, 4], transaction: true }]);
  });

  it('a deadline names what it left: a transaction rolled back, or what was committed and what may have completed', () => {
    const statements = ['UPDATE accounts SET v = 0', 'TRUNCATE orders', 'UPDATE orders SET v = 1'];
    const oneTx = planBatches(statements, () => false);
    expect(atDeadline(statements, { batches: oneTx, applied: [], running: oneTx[0] })).toBe(
      'nothing was applied (dropping the connection rolled the transaction back)',
    );
    const mysql = planBatches(statements, (s) => s.startsWith('TRUNCATE'));
    expect(atDeadline(statements, { batches: mysql, applied: [mysql[0]], running: mysql[1] })).toBe(
      'applied and committed before it: 1 (UPDATE accounts SET v = 0): the data is part-way reset; statement 2 (TRUNCATE orders) was running outside a transaction: it may have completed on the server; not run: 3',
    );
    expect(atDeadline(statements, { batches: mysql, applied: [], running: null })).toBe('');
  });
});
