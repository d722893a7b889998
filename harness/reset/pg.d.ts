/**
 * The part of node-postgres (`pg`, which ships no types) that harness/reset/pg-driver.ts uses,
 * declared here instead of adding @types/pg: connect, query (rows as objects or arrays), end.
 */
declare module 'pg' {
  interface ClientConfig {
    connectionString?: string;
    /** Gives up connecting after this many ms. */
    connectionTimeoutMillis?: number;
    /** The server cancels any statement running longer (ms). */
    statement_timeout?: number;
    /** The client gives up waiting on a query after this many ms. */
    query_timeout?: number;
    application_name?: string;
    /** Startup options, e.g. "-c default_transaction_read_only=on". */
    options?: string;
  }
  interface QueryResult<R> {
    rows: R[];
    rowCount: number | null;
  }
  class Client {
    constructor(config?: ClientConfig);
    connect(): Promise<void>;
    query<R = Record<string, unknown>>(text: string): Promise<QueryResult<R>>;
    query(config: { text: string; rowMode: 'array' }): Promise<QueryResult<unknown[]>>;
    end(): Promise<void>;
    on(event: 'error', listener: (err: Error) => void): this;
  }
  const pg: { Client: typeof Client };
  export default pg;
}
