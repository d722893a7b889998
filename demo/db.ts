/**
 * The demo's SQLite store (better-sqlite3, WAL): accounts with an optimistic `version` column,
 * and an append-only idempotency table whose id column has a length limit (like VARCHAR(50)).
 */
import Database from 'better-sqlite3';

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
}

export interface ResetCounts {
  before: TableCounts & { changedAccounts: number };
  after: TableCounts & { changedAccounts: number };
}

export class DemoDb {
  private readonly db: Database.Database;
  private readonly sql;

  constructor(
    file: string,
    readonly rows: number,
    readonly idMaxLength: number,
  ) {
    this.db = new Database(file);
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
    `);
    this.sql = {
      findIdem: this.db.prepare<[string], CachedAnswer>('SELECT response FROM idempotency WHERE id = ?'),
      findAccount: this.db.prepare<[number], AccountRow>('SELECT balance_cents, version FROM accounts WHERE id = ?'),
      updateAccount: this.db.prepare<[number, number, number, number]>(
        'UPDATE accounts SET balance_cents = ?, version = ? WHERE id = ? AND version = ?',
      ),
      insertIdem: this.db.prepare<[string, number, number, string, string]>(
        'INSERT INTO idempotency (id, account_id, amount_cents, created_at, response) VALUES (?, ?, ?, ?, ?)',
      ),
      countAccounts: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts'),
      countIdem: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM idempotency'),
      countChanged: this.db.prepare<[], { n: number }>(
        'SELECT COUNT(*) AS n FROM accounts WHERE balance_cents <> 0 OR version <> 0',
      ),
    };
    if (this.counts().accounts !== rows) this.reseed();
  }

  findIdempotent(id: string): CachedAnswer | undefined {
    return this.sql.findIdem.get(id);
  }

  findAccount(accountId: number): AccountRow | undefined {
    return this.sql.findAccount.get(accountId);
  }

  /**
   * Optimistic write: bump balance and version only if the version is still `expectedVersion`,
   * and record the idempotent answer, in one transaction. Returns false on a version conflict.
   */
  applyOrder(
    order: { id: string; accountId: number; amountCents: number },
    current: AccountRow,
    response: string,
  ): boolean {
    return this.db.transaction((): boolean => {
      const res = this.sql.updateAccount.run(
        current.balance_cents + order.amountCents,
        current.version + 1,
        order.accountId,
        current.version,
      );
      if (res.changes !== 1) return false;
      this.sql.insertIdem.run(order.id, order.accountId, order.amountCents, new Date().toISOString(), response);
      return true;
    })();
  }

  counts(): TableCounts {
    return { accounts: this.sql.countAccounts.get()!.n, idempotency: this.sql.countIdem.get()!.n };
  }

  /** Back to the standard state: every account balance 0 / version 0, idempotency empty. */
  reset(): ResetCounts {
    const before = { ...this.counts(), changedAccounts: this.sql.countChanged.get()!.n };
    this.db.transaction(() => {
      if (before.accounts !== this.rows) {
        this.reseed();
      } else {
        this.db.exec('UPDATE accounts SET balance_cents = 0, version = 0 WHERE balance_cents <> 0 OR version <> 0');
      }
      this.db.exec('DELETE FROM idempotency');
    })();
    const after = { ...this.counts(), changedAccounts: this.sql.countChanged.get()!.n };
    return { before, after };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Drop every account and seed ids 1..rows in one statement (fast: ~100k rows in tens of ms). */
  private reseed(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM accounts');
      this.db
        .prepare(
          `WITH RECURSIVE seq(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM seq WHERE x < ?)
           INSERT INTO accounts (id, balance_cents, version) SELECT x, 0, 0 FROM seq`,
        )
        .run(this.rows);
    })();
  }
}
