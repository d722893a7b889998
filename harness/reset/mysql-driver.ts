/**
 * The MySQL protocol behind the SqlDriver seam (MySQL, MariaDB, TiDB, OceanBase's MySQL mode),
 * through `mysql2`, imported only when a hook or a probe uses it. MySQL commits TRUNCATE and DDL
 * implicitly (and TiDB's SPLIT TABLE is no transaction either): those statements run alone, outside
 * any transaction, and sql.ts says so.
 */
import type { Connection } from 'mysql2/promise';
import type { OpenOptions } from './pg-driver.ts';
import { quoteIdent, StatementError, type SqlDriver } from './sql.ts';
import { verbOf } from './sql-guard.ts';

/** Statements MySQL commits implicitly (the ones a reset may run: TRUNCATE, ALTER, TiDB's SPLIT; and the other DDL). */
const IMPLICIT_COMMIT = new Set(['TRUNCATE', 'ALTER', 'SPLIT', 'CREATE', 'DROP', 'RENAME']);

/** ER_NOT_SUPPORTED_YET, TiDB's answer to a noop function such as READ ONLY. */
const NOOP_IN_TIDB = 1235;

export async function openMysql(o: OpenOptions): Promise<SqlDriver> {
  const mysql = await import('mysql2/promise');
  const conn: Connection = await mysql.createConnection({
    uri: o.url,
    connectTimeout: o.timeoutMs,
    multipleStatements: false,
    // BIGINT and DECIMAL counts as strings, never a rounded number
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  // A connection the server drops later surfaces on the next query; without a listener it would crash the process.
  conn.on('error', () => {});
  const query = (sql: string) => conn.query({ sql, timeout: o.timeoutMs });
  const exec = async (sql: string, index: number) => {
    try {
      await query(sql);
    } catch (err) {
      throw new StatementError(index, err);
    }
  };
  // A probe's session is read-only: one SELECT can still write on MySQL and MariaDB (nextval of a
  // sequence, SELECT ... FOR UPDATE's locks, a function that writes). TiDB refuses SET TRANSACTION
  // READ ONLY (1235: a noop unless tidb_enable_noop_functions): there the probe's query is held to
  // one SELECT, WITH or SHOW alone (probes/).
  if (o.readOnly) {
    await query('SET SESSION TRANSACTION READ ONLY').catch((err: { errno?: number }) => {
      if (err?.errno !== NOOP_IN_TIDB) throw err;
    });
  }
  return {
    kind: 'mysql',
    where: o.where,
    databaseName: async () => {
      const [rows] = await conn.query({ sql: 'SELECT DATABASE()', rowsAsArray: true, timeout: o.timeoutMs });
      return String((rows as unknown[][])[0]?.[0] ?? '');
    },
    count: async (table) => {
      const [rows] = await conn.query({
        sql: `SELECT COUNT(*) FROM ${quoteIdent('mysql', table)}`,
        rowsAsArray: true,
        timeout: o.timeoutMs,
      });
      return Number((rows as unknown[][])[0][0]);
    },
    run: async (statements) => {
      await conn.beginTransaction();
      try {
        for (const [i, s] of statements.entries()) await exec(s, i);
      } catch (err) {
        await conn.rollback().catch(() => {});
        throw err;
      }
      try {
        await conn.commit();
      } catch (err) {
        throw new StatementError('commit', err);
      }
    },
    runAlone: (statement) => exec(statement, 0),
    commitsImplicitly: (statement) => IMPLICIT_COMMIT.has(verbOf(statement)),
    rows: async (sql) => {
      const [rows] = await conn.query({ sql, rowsAsArray: true, timeout: o.timeoutMs });
      return rows as unknown[][];
    },
    close: () => conn.end().catch(() => conn.destroy()),
    destroy: () => conn.destroy(),
  };
}
