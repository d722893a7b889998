/**
 * PostgreSQL behind the SqlDriver seam, through node-postgres (`pg`), imported only when a hook or
 * a probe uses it. Every statement of a reset runs in one transaction: TRUNCATE and DDL are
 * transactional in PostgreSQL, so a failure part-way leaves nothing applied.
 */
import { quoteIdent, StatementError, type SqlDriver } from './sql.ts';

export interface OpenOptions {
  url: string;
  /** Shown in messages: host:port/database, never credentials. */
  where: string;
  /** Bounds the connect, and every statement on the server (statement_timeout) and in the client. */
  timeoutMs: number;
  /** Every transaction of the session read-only (a probe). */
  readOnly?: boolean;
}

export async function openPostgres(o: OpenOptions): Promise<SqlDriver> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: o.url,
    connectionTimeoutMillis: o.timeoutMs,
    statement_timeout: o.timeoutMs,
    query_timeout: o.timeoutMs,
    application_name: 'plateau',
    ...(o.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // A connection the server drops later surfaces on the next query; without a listener it would crash the process.
  client.on('error', () => {});
  await client.connect();
  const exec = async (sql: string, index: number) => {
    try {
      await client.query(sql);
    } catch (err) {
      throw new StatementError(index, err);
    }
  };
  return {
    kind: 'postgres',
    where: o.where,
    databaseName: async () => (await client.query<{ name: string }>('SELECT current_database() AS name')).rows[0].name,
    count: async (table) =>
      Number(
        (await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteIdent('postgres', table)}`)).rows[0].n,
      ),
    run: async (statements) => {
      await client.query('BEGIN');
      try {
        for (const [i, s] of statements.entries()) await exec(s, i);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
      try {
        await client.query('COMMIT');
      } catch (err) {
        throw new StatementError('commit', err);
      }
    },
    runAlone: (statement) => exec(statement, 0),
    commitsImplicitly: () => false,
    rows: async (sql) => (await client.query({ text: sql, rowMode: 'array' })).rows,
    close: () => client.end().catch(() => {}),
    destroy: () => void client.end().catch(() => {}),
  };
}
