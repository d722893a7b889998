/**
 * The demo's SQLite store (libsql's SQLite through its better-sqlite3 API, WAL: decision 042):
 * accounts with an optimistic `version` column, an append-only idempotency table whose id column
 * has a length limit (like VARCHAR(50)), and the orders themselves (created, then confirmed), with
 * `seedOrders` seeded orders `seed-<k>` that reads find from the start and a reset restores. Every
 * statement runs through `counted`, so `statements` holds what was executed by kind (statements.ts
 * lists each route's).
 */
import Database from 'libsql';
import { SEED_PREFIX } from './mix.ts';
import { StatementCounts, statementKind } from './statements.ts';

/** A prepared statement that counts itself, by kind, each time it runs. */
export interface CountedStatement<P extends unknown[], R> {
  get(...params: P): R | undefined;
  run(...params: P): Database.RunResult;
}

export interface CachedAnswer {
  response: string;
}

export interface AccountRow {
  balance_cents: number;
  version: number;
}

export interface TableCounts {
  accounts: number;
  idempotency: number;
  orders: number;
}

export type OrderStatus = 'created' | 'confirmed';

/** An order as the API shows it (GET /orders/{id}, and the answers of POST /orders and confirm). */
export interface OrderView {
  id: string;
  accountId: number;
  amountCents: number;
  status: OrderStatus;
  /** The account's version after this order's write (0 for a seeded order). */
  version: number;
}

interface OrderRow {
  id: string;
  account_id: number;
  amount_cents: number;
  status: OrderStatus;
  version: number;
}

const viewOf = (r: OrderRow): OrderView => ({
  id: r.id,
  accountId: r.account_id,
  amountCents: r.amount_cents,
  status: r.status,
  version: r.version,
});

export interface ResetCounts {
  before: TableCounts & { changedAccounts: number };
  after: TableCounts & { changedAccounts: number };
}

export class DemoDb {
  private readonly db: Database.Database;
  private readonly sql;
  private readonly resetSql;
  /** The statements executed so far, by kind (never reset). */
  readonly statements = new StatementCounts();

  constructor(
    file: string,
    readonly rows: number,
    readonly idMaxLength: number,
    readonly seedOrders: number = 0,
  ) {
    // a writer holding the file (a reset hook, a sqlite3 shell) is waited for up to 5 s, not a 500
    this.db = new Database(file, { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS accounts (
        id INTEGER PRIMARY KEY,
        balance_cents INTEGER NOT NULL,
        version INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS idempotency (
        id TEXT PRIMARY KEY CHECK (length(id) <= ${Math.floor(idMaxLength)}),
        account_id INTEGER NOT NULL,
        amount_cents INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        response TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS orders (
        id TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL,
        amount_cents INTEGER NOT NULL,
        version INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('created', 'confirmed')),
        created_at TEXT NOT NULL,
        confirmed_at TEXT
      );
    `);
    this.sql = {
      findIdem: this.counted<[string], CachedAnswer>('SELECT response FROM idempotency WHERE id = ?'),
      findAccount: this.counted<[number], AccountRow>('SELECT balance_cents, version FROM accounts WHERE id = ?'),
      updateAccount: this.counted<[number, number, number, number], unknown>(
        'UPDATE accounts SET balance_cents = ?, version = ? WHERE id = ? AND version = ?',
      ),
      insertIdem: this.counted<[string, number, number, string, string], unknown>(
        'INSERT INTO idempotency (id, account_id, amount_cents, created_at, response) VALUES (?, ?, ?, ?, ?)',
      ),
      insertOrder: this.counted<[string, number, number, number, string], unknown>(
        "INSERT INTO orders (id, account_id, amount_cents, version, status, created_at) VALUES (?, ?, ?, ?, 'created', ?)",
      ),
      findOrder: this.counted<[string], OrderRow>(
        'SELECT id, account_id, amount_cents, version, status FROM orders WHERE id = ?',
      ),
      confirmOrder: this.counted<[string, string], unknown>(
        "UPDATE orders SET status = 'confirmed', confirmed_at = ? WHERE id = ? AND status = 'created'",
      ),
      countOrders: this.counted<[], { n: number }>('SELECT COUNT(*) AS n FROM orders'),
      countAccounts: this.counted<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts'),
      countIdem: this.counted<[], { n: number }>('SELECT COUNT(*) AS n FROM idempotency'),
      countChanged: this.counted<[], { n: number }>(
        'SELECT COUNT(*) AS n FROM accounts WHERE balance_cents <> 0 OR version <> 0',
      ),
    };
    this.resetSql = {
      zeroAccounts: this.counted<[], unknown>(
        'UPDATE accounts SET balance_cents = 0, version = 0 WHERE balance_cents <> 0 OR version <> 0',
      ),
      clearIdem: this.counted<[], unknown>('DELETE FROM idempotency'),
      clearOrders: this.counted<[], unknown>('DELETE FROM orders'),
      clearAccounts: this.counted<[], unknown>('DELETE FROM accounts'),
      countUnseeded: this.counted<[string], { n: number }>(
        "SELECT COUNT(*) AS n FROM orders WHERE status <> 'created' OR id NOT LIKE ?",
      ),
      seedOrders: this.counted<[number, string, number, string], unknown>(
        `WITH RECURSIVE seq(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM seq WHERE k < ? - 1)
         INSERT INTO orders (id, account_id, amount_cents, version, status, created_at)
         SELECT ? || k, (k % ?) + 1, 100, 0, 'created', ? FROM seq`,
      ),
      seedAccounts: this.counted<[number], unknown>(
        `WITH RECURSIVE seq(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM seq WHERE x < ?)
         INSERT INTO accounts (id, balance_cents, version) SELECT x, 0, 0 FROM seq`,
      ),
    };
    if (this.counts().accounts !== rows) this.reseed();
    if (!this.seedsIntact()) this.reseedOrders();
  }

  /** Prepare `sql` so that each execution counts under its kind (statementKind). */
  private counted<P extends unknown[], R>(sql: string): CountedStatement<P, R> {
    const stmt = this.db.prepare<P>(sql);
    const kind = statementKind(sql);
    const counts = this.statements;
    return {
      get: (...params) => {
        counts.add(kind);
        return stmt.get(...params) as R | undefined;
      },
      run: (...params) => {
        counts.add(kind);
        return stmt.run(...params);
      },
    };
  }

  findIdempotent(id: string): CachedAnswer | undefined {
    return this.sql.findIdem.get(id);
  }

  findAccount(accountId: number): AccountRow | undefined {
    return this.sql.findAccount.get(accountId);
  }

  findOrder(id: string): OrderView | undefined {
    const row = this.sql.findOrder.get(id);
    return row && viewOf(row);
  }

  /**
   * Confirm a created order: the order after it, 'absent', or 'already confirmed' (nothing
   * changed). One statement, so two confirms of one order cannot both succeed.
   */
  confirmOrder(id: string): OrderView | 'absent' | 'already confirmed' {
    if (this.sql.confirmOrder.run(new Date().toISOString(), id).changes === 1) return this.findOrder(id)!;
    return this.sql.findOrder.get(id) ? 'already confirmed' : 'absent';
  }

  /**
   * Optimistic write: bump balance and version only if the version is still `expectedVersion`,
   * and record the order and its idempotent answer, in one transaction. Returns false on a
   * version conflict.
   */
  applyOrder(
    order: { id: string; accountId: number; amountCents: number },
    current: AccountRow,
    response: string,
  ): boolean {
    return this.atomically((): boolean => {
      const res = this.sql.updateAccount.run(
        current.balance_cents + order.amountCents,
        current.version + 1,
        order.accountId,
        current.version,
      );
      if (res.changes !== 1) return false;
      const at = new Date().toISOString();
      this.sql.insertIdem.run(order.id, order.accountId, order.amountCents, at, response);
      this.sql.insertOrder.run(order.id, order.accountId, order.amountCents, current.version + 1, at);
      return true;
    });
  }

  counts(): TableCounts {
    return {
      accounts: this.sql.countAccounts.get()!.n,
      idempotency: this.sql.countIdem.get()!.n,
      orders: this.sql.countOrders.get()!.n,
    };
  }

  /**
   * Back to the standard state: every account balance 0 / version 0, idempotency empty, the
   * orders only the seeded ones, none confirmed.
   */
  reset(): ResetCounts {
    const before = { ...this.counts(), changedAccounts: this.sql.countChanged.get()!.n };
    this.atomically(() => {
      if (before.accounts !== this.rows) {
        this.reseed();
      } else {
        this.resetSql.zeroAccounts.run();
      }
      this.resetSql.clearIdem.run();
      this.reseedOrders();
    });
    const after = { ...this.counts(), changedAccounts: this.sql.countChanged.get()!.n };
    return { before, after };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** The orders are exactly the seeded ones, none confirmed (a file left by a run is not). */
  private seedsIntact(): boolean {
    const n = this.sql.countOrders.get()!.n;
    if (n !== this.seedOrders) return false;
    return this.resetSql.countUnseeded.get(`${SEED_PREFIX}%`)!.n === 0;
  }

  /**
   * Drop every order and seed `seed-0` .. `seed-<seedOrders - 1>` (mix.ts's seedOrderId), order k
   * on account (k mod rows) + 1, in one statement.
   */
  private reseedOrders(): void {
    this.atomically(() => {
      this.resetSql.clearOrders.run();
      if (this.seedOrders === 0) return;
      this.resetSql.seedOrders.run(this.seedOrders, SEED_PREFIX, this.rows, new Date().toISOString());
    });
  }

  /** Drop every account and seed ids 1..rows in one statement (fast: ~100k rows in tens of ms). */
  private reseed(): void {
    this.atomically(() => {
      this.resetSql.clearAccounts.run();
      this.resetSql.seedAccounts.run(this.rows);
    });
  }

  /**
   * fn in a transaction, or in the one already open (libsql's transaction() does not nest: a BEGIN
   * inside one fails, where better-sqlite3's made a savepoint). A throw rolls back the outermost,
   * unless SQLite did already (INSERT OR ROLLBACK, a full disk), where a ROLLBACK would fail and its
   * error hide fn's (libsql's transaction() does that).
   */
  private atomically<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.db.exec('BEGIN');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }
}
