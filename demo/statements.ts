/**
 * The SQL statements the demo runs against its SQLite database, counted by kind where they run
 * (db.ts: every statement goes through one counted wrapper) and exposed as
 * `demo_sql_statements_total{kind="select"|"insert"|"update"|"delete"}`: the demo's downstream,
 * so a run can measure its fan-out per request. A statement is counted when it is executed, also
 * when SQLite refuses it (a constraint); transaction control (BEGIN, COMMIT, ROLLBACK, which
 * the driver's transaction() issues) and the schema's DDL and pragmas at open are not.
 *
 * Statements per request (STATEMENTS_PER_REQUEST; test/demo-metrics.test.ts checks them against
 * the counter):
 *
 *   POST /orders, a new order (201)    SELECT idempotency, SELECT account, UPDATE account,
 *                                      INSERT idempotency, INSERT order               2 s, 1 u, 2 i = 5
 *   POST /orders, a replay (200)       SELECT idempotency                             1 s       = 1
 *   POST /orders, id too long (500)    SELECT idempotency                             1 s       = 1
 *   POST /orders, no account (404)     SELECT idempotency, SELECT account             2 s       = 2
 *   POST /orders, version conflict     SELECT idempotency, SELECT account, UPDATE (0 rows)
 *                                                                                     2 s, 1 u  = 3
 *   POST /orders, a seeded id (409)    as a new order, its INSERT order refused       2 s, 1 u, 2 i = 5
 *   GET /orders/{id} (200 or 404)      SELECT order                                   1 s       = 1
 *   POST /orders/{id}/confirm (200)    UPDATE order, SELECT order                     1 s, 1 u  = 2
 *   ... (404 or 409)                   UPDATE order (0 rows), SELECT order            1 s, 1 u  = 2
 *   401, 400, a 503 acquire timeout    none (refused before the pool or the database)          0
 *   /health, /ping, /metrics           none                                                    0
 *
 * So demo/scenario.ts's mix (read order 70, create order 25, checkout 5 = create + confirm) runs
 * (0.7 x 1 + 0.25 x 5 + 0.05 x 7) = 2.3 statements per arrival, 2.3 / 1.05 = 2.19 per request
 * (DEMO_MIX_STATEMENTS). Pure: no I/O.
 */
import { DEMO_MIX } from './mix.ts';

export const STATEMENT_KINDS = ['select', 'insert', 'update', 'delete'] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];
export type StatementCountsByKind = Record<StatementKind, number>;

/**
 * The kind of a statement from its text: its first keyword, or for a WITH the main statement's
 * (the first INSERT, UPDATE or DELETE after it; SELECT when none). Refuses any other statement, so
 * a statement added to db.ts cannot go uncounted under a wrong kind.
 */
export function statementKind(sql: string): StatementKind {
  const text = sql.trim().toUpperCase();
  const first = /^[A-Z]+/.exec(text)?.[0];
  if (first === 'SELECT' || first === 'INSERT' || first === 'UPDATE' || first === 'DELETE')
    return first.toLowerCase() as StatementKind;
  if (first === 'WITH') {
    const main = /\b(INSERT|UPDATE|DELETE)\b/.exec(text)?.[1];
    return (main?.toLowerCase() as StatementKind | undefined) ?? 'select';
  }
  throw new RangeError(
    `not a counted statement (${sql.trim().slice(0, 40)}): the demo counts SELECT, INSERT, UPDATE and DELETE; run DDL and pragmas directly`,
  );
}

/** Cumulative statements by kind (never reset: a counter, like a database's own status counters). */
export class StatementCounts {
  private readonly counts: StatementCountsByKind = { select: 0, insert: 0, update: 0, delete: 0 };

  add(kind: StatementKind): void {
    this.counts[kind]++;
  }

  snapshot(): StatementCountsByKind {
    return { ...this.counts };
  }
}

type Fanout = Partial<StatementCountsByKind>;

/** The statements of each kind one request runs, by route and outcome (the table above). */
export const STATEMENTS_PER_REQUEST = {
  'POST /orders created': { select: 2, update: 1, insert: 2 },
  'POST /orders replay': { select: 1 },
  'POST /orders id too long': { select: 1 },
  'POST /orders no account': { select: 2 },
  'POST /orders version conflict': { select: 2, update: 1 },
  'POST /orders seeded id': { select: 2, update: 1, insert: 2 },
  'GET /orders/{id}': { select: 1 },
  'POST /orders/{id}/confirm': { select: 1, update: 1 },
  refused: {},
} as const satisfies Record<string, Fanout>;

/** All statements of a request, every kind. */
export function totalOf(f: Fanout): number {
  return STATEMENT_KINDS.reduce((a, k) => a + (f[k] ?? 0), 0);
}

/** The mix's statements per arrival and per request when every request succeeds. */
export const DEMO_MIX_STATEMENTS = (() => {
  const created = totalOf(STATEMENTS_PER_REQUEST['POST /orders created']);
  const read = totalOf(STATEMENTS_PER_REQUEST['GET /orders/{id}']);
  const confirm = totalOf(STATEMENTS_PER_REQUEST['POST /orders/{id}/confirm']);
  const w = DEMO_MIX;
  const total = w['read order'] + w['create order'] + w.checkout;
  const perArrival = (w['read order'] * read + w['create order'] * created + w.checkout * (created + confirm)) / total;
  const requestsPerArrival = (w['read order'] + w['create order'] + 2 * w.checkout) / total;
  return { perArrival, perRequest: perArrival / requestsPerArrival };
})();
