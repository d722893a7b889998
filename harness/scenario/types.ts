/**
 * The portable scenario: a module that builds requests; the engine sends them. The same file is
 * meant to run on every engine, so it sees only this context, never the engine.
 */

export interface RequestSpec {
  method?: string;
  /** Absolute, or a path resolved against the target's origin. */
  url: string;
  /** Each value a string; a finite number is sent as its digits; anything else (undefined, an object) is refused. */
  headers?: Record<string, string | number>;
  body?: string | Uint8Array;
}

export interface ResponseInfo {
  status: number;
  /**
   * Header names are lower-case on both engines, whatever the target wrote: `res.headers['x-cache']`
   * (`res.headers['X-Cache']` is undefined; preflight names the fix of a check that reads one).
   * Read only for a check or a transaction that uses it.
   */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body as text: at most http.maxBodyBytes (default 64 KiB) is kept, the rest counted and
   * discarded (truncated says so). Read only for a check or a transaction that uses it (docs/decisions/028).
   */
  readonly body: string;
  /**
   * The body was longer than http.maxBodyBytes: body and json() see its first bytes only (a check
   * that rejects such a response says how many it saw, and the fix: raise http.maxBodyBytes).
   */
  readonly truncated: boolean;
  /** The body parsed as JSON; throws when it is not JSON (the check then fails with the message). */
  json(): any;
  /** The body as text: `body` as a method, as fetch's Response has it beside json(). */
  text(): string;
}

/**
 * Return true to accept; false or a message (a string, whatever it says) counts the response as a
 * failed check. Returning nothing rejects too (verdict.ts checkReturned), so the type has no void: a
 * check written with braces and no return, `(res) => { res.status === 200 }`, is a type error.
 */
export type Check = (response: ResponseInfo) => boolean | string;

/** What http.send resolves to inside a transaction: the response, and whether the request passed. */
export interface SentResponse extends ResponseInfo {
  /** No transport error, status below 400, and its check (if any) passed. */
  readonly ok: boolean;
  /** Why not, when !ok (the error or the check's message). */
  readonly error?: string;
}

/**
 * The HTTP side of a transaction: each request is named and sent on the arrival's VU; sends made
 * together (Promise.all) are in flight together, each on a connection of its own.
 */
export interface TransactionHttp {
  /** Sends one named request; a transport error or a failed check resolves with ok false, never throws. */
  send(name: string, request: RequestSpec, check?: Check): Promise<SentResponse>;
}

/** One request per arrival, named by its key in `mix`. */
export interface RequestEntry {
  weight: number;
  request(ctx: ScenarioContext): RequestSpec;
  check?: Check;
  run?: never;
}

/**
 * A transaction: several named requests in order, think time between them. The arrival succeeds
 * when every request it sent succeeded and passed its check, and run did not throw.
 */
export interface TransactionEntry {
  weight: number;
  run(ctx: ScenarioContext, http: TransactionHttp): Promise<void> | void;
  request?: never;
  check?: never;
}

export type MixEntry = RequestEntry | TransactionEntry;

/**
 * How ctx.row(name) picks a row: in turn for each mix entry (wrapping), each row at most once in
 * the run, or drawn at random by the arrival's number and the source's `seed` (else the run id).
 */
export type DataOrder = 'sequential' | 'unique' | 'random';

/**
 * A data file, resolved beside the scenario: CSV (RFC 4180, a header row) or a JSON array of objects.
 * `readBy` (order 'unique', a mix): the entries that read it; only their arrivals take its rows,
 * numbered among theirs, and any other entry's ctx.row of it fails its arrival.
 * `seed` (order 'random'): what the draws follow, taken as its text (seed 42 is '42'); without one,
 * the run id, so runs of other ids draw other rows. Two runs you compare draw the same rows, on
 * either engine and any number of threads, when given the same seed.
 */
export type DataSource = ({ csv: string } | { json: string }) & {
  order?: DataOrder;
  readBy?: string[];
  seed?: string | number;
};

/** A row of a data source: a CSV row's fields as strings, or a JSON array's object. */
export type Row = Record<string, any>;

export type IdFormat = 'seq' | 'uuidv4' | 'uuidv7';

export interface ScenarioContext {
  /** The run's id: generated (time and a random part), or the one given (--run-id, output.runId), which another run may share. */
  readonly runId: string;
  /** Global iteration number, 1-based, unique across workers. */
  readonly seq: number;
  /**
   * `${ids.prefix}${idKey}-${seq}` by default, idKey the run's own (a generated run id, or a given one
   * and a suffix no other run has): one per arrival, every call in it returns the same (add a
   * suffix for a second object); 'uuidv4' and 'uuidv7' give a fresh UUID each call.
   */
  uniqueId(format?: IdFormat): string;
  /**
   * A business object index in [0, keySpace): spreads load over many rows (default 100,000). A pure
   * function of the arrival, the same on both engines: its picks agree (pick(24) twice is one key,
   * pick(1000) % 100 is pick(100)); a salt, pick(24, 'item 2'), gives an independent key for it.
   */
  pick(keySpace?: number, salt?: string | number): number;
  /** Hex HMAC-SHA256 of the exact bytes given, keyed by the named environment variable. */
  hmacSha256(secretEnvName: string, body: string | Uint8Array): string;
  /**
   * The scenario's `secrets`, read from the environment: a record, `ctx.env.API_TOKEN` (not
   * ctx.env('API_TOKEN')), as in `headers: { authorization: 'Bearer ' + ctx.env.API_TOKEN }`. Only
   * declared variables: reading another throws, and preflight refuses it before load with the fix
   * (list it in `secrets`). Their values are scrubbed from every file and line plateau writes, a
   * target's echo of them too (but one under 6 characters or number-like: secret-scrub.ts).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The row of data source `name` for this arrival, by the source's order: shared by every VU of a
   * thread and read-only (frozen, nested values too); change a copy, `{ ...ctx.row(name) }`, or
   * JSON.parse(JSON.stringify(...)) for a JSON row's nested values (k6 has no structuredClone).
   */
  row(name: string): Row;
  /**
   * Think time: resolves after ms; the VU stays held (VU sizing counts it). ms from 0 to
   * http.transactionTimeoutMs: anything else throws (a longer sleep could only time its transaction out).
   */
  sleep(ms: number): Promise<void>;
}

export interface Scenario {
  name?: string;
  ids?: {
    prefix?: string;
    /** Length of the target's strictest id column: preflight refuses a run whose ids would exceed it. */
    maxLength?: number;
  };
  /**
   * Environment variables the scenario reads (ctx.env, ctx.hmacSha256): preflight fails when one is
   * missing, and their values are scrubbed from every output.
   */
  secrets?: string[];
  /** Data files, by name, for ctx.row(name): loaded once per process, shared by every VU of a thread. */
  data?: Record<string, DataSource>;
  /**
   * The traffic: one entry per arrival, chosen by weighted round robin (Tijdeman's order, mix-order.ts) over the global
   * arrival number. Without it, `request` (and `check`) is the one entry, named after the scenario.
   */
  mix?: Record<string, MixEntry>;
  request?(ctx: ScenarioContext): RequestSpec;
  /** Return true to accept, false or a message to count the response as a failed check (Check). */
  check?: Check;
}

export function defineScenario(s: Scenario): Scenario {
  return s;
}
