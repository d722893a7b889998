/**
 * The scenario as the native engine runs it: per arrival number, an entry of the mix, either one
 * request (a builder and a check) or a transaction (run on the arrival's VU), and what the engine
 * asks of the scenario beside (Arrivals). Made of a loaded scenario's traffic by requests.ts, in the
 * main thread and in every engine worker, or of a bare builder (requestArrivals). Apart from
 * requests.ts, which loads the scenario: the engine and its tests know the scenario only by these.
 */
import type { Check, RequestSpec, SentResponse, TransactionHttp } from './types.ts';
import type { ContextFactory } from './context.ts';
import type { TrafficEntry } from './traffic.ts';
import { entryCheck, sent, transactionCheckOf, type Kept } from './responses.ts';
import { prepared, strictSpec } from './prepared.ts';
import { thrownText } from './row-writes.ts';
import type { Outcome } from '../engine/outcome.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';

/** A one-request entry: the request of arrival seq, and its check (null: accepted). */
export interface RequestRun {
  kind: 'request';
  name: string;
  build(seq: number): PreparedRequest;
  check(o: Outcome): string | null;
}

/** A transaction: runs on the arrival's VU with the engine's http.send. */
export interface TransactionRun {
  kind: 'transaction';
  name: string;
  /** What its answers keep: what its code names (docs/decisions/028); reading anything else throws the fix. */
  kept: Kept;
  run(seq: number, http: TransactionHttp): Promise<void> | void;
}

export type EntryRun = RequestRun | TransactionRun;

/** What the native engine needs of the scenario: the entry of each arrival, and how to send a transaction's requests. */
export interface Arrivals {
  /** Results are recorded per name (a mix of several entries, or a transaction). */
  byName: boolean;
  /** http.transactionTimeoutMs: a transaction not ended by then fails its arrival (kind timeout). */
  transactionTimeoutMs: number;
  /**
   * The clients' default for keeping response headers (some check, or a transaction); each request
   * the scenario builds sets its own (PreparedRequest.keepHeaders), so this serves raw requests only.
   */
  keepHeaders: boolean;
  entries: EntryRun[];
  entryOf(seq: number): EntryRun;
  /** The period of the entries' order (mix-order.ts; 1 for one entry): how the stripes turn (engine/stripes.ts). */
  period: number;
  /** A transaction's request, ready to send, keeping what its code reads (the body up to http.maxBodyBytes). */
  prepare(spec: RequestSpec, kept?: Kept): PreparedRequest;
  /** Runs a transaction's check (given to http.send) on a response; null when accepted, else why not. */
  checkOf(check: Check | undefined, o: Outcome, kept?: Kept): string | null;
  /** A transaction's response as the scenario keeps it (a copy: the VU's outcome is reused). */
  sent(o: Outcome, error: string | null, kept?: Kept): SentResponse;
  /**
   * Whether http.send may use this name: null when it may, else why not with the fix (a name built
   * from data, one past MAX_NAMES, or a transaction's own name). Remembers the names admitted.
   */
  admit(name: unknown): string | null;
  /**
   * What an arrival whose scenario code threw fails with (kind other): its message, and for a
   * write to a row of ctx.row what that means and the copy to make (row-writes.ts). Only on a throw.
   */
  threw(err: unknown): string;
}

export const DEFAULT_TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * Entry e as the engine runs it. `mistake`, for preflight's sample arrivals (their requests' fields
 * checked too): what their code throws goes through it (requests.ts sampleMistake), where the load's
 * throws are worded only when recorded (Arrivals.threw).
 */
export function entryRun(
  e: TrafficEntry,
  contexts: ContextFactory,
  origin: string,
  maxBodyBytes: number,
  mixed: boolean,
  mistake?: (err: unknown) => unknown,
): EntryRun {
  return e.run
    ? transactionRun(e, contexts, maxBodyBytes, mistake)
    : requestRun(e, contexts, origin, maxBodyBytes, mixed, mistake);
}

/** A transaction entry: its run on the arrival's ctx, whose answers keep what its code reads. */
function transactionRun(
  e: TrafficEntry,
  contexts: ContextFactory,
  maxBodyBytes: number,
  mistake?: (err: unknown) => unknown,
): TransactionRun {
  const run = e.run!;
  const kept = { ...e.runReads, bodyBytes: maxBodyBytes };
  return {
    kind: 'transaction',
    name: e.name,
    kept,
    run: mistake
      ? async (seq, http) => {
          try {
            await run(contexts(seq), http);
          } catch (err) {
            throw mistake(err);
          }
        }
      : (seq, http) => run(contexts(seq), http),
  };
}

/** A one-request entry: its request built of the arrival's ctx, which keeps what its check reads. */
function requestRun(
  e: TrafficEntry,
  contexts: ContextFactory,
  origin: string,
  maxBodyBytes: number,
  mixed: boolean,
  mistake?: (err: unknown) => unknown,
): RequestRun {
  const request = e.request!;
  const keep = e.checkReadsBody ? maxBodyBytes : 0;
  const headers = e.checkReadsHeaders;
  const check = e.check;
  // a bad request's message names the entry when a mix has several request(ctx)
  const what = mixed ? `request(ctx) of entry ${JSON.stringify(e.name)}` : 'request(ctx)';
  return {
    kind: 'request',
    name: e.name,
    // the socket client makes header strings only for a check that reads them
    build: mistake
      ? (seq) => {
          let spec: RequestSpec;
          try {
            spec = request(contexts(seq));
          } catch (err) {
            throw mistake(err);
          }
          return prepared(strictSpec(spec, `${what} returned `), origin, keep, headers, what);
        }
      : (seq) => prepared(request(contexts(seq)), origin, keep, headers, what),
    check: check ? entryCheck(check, { body: keep > 0, headers, bodyBytes: keep }) : () => null,
  };
}

/** Arrivals of one request entry from a builder and a check (the engine's tests, and callers without a scenario module). */
export function requestArrivals(
  build: (seq: number) => PreparedRequest,
  check: (o: Outcome) => string | null = () => null,
  name = 'request',
): Arrivals {
  const entry: RequestRun = { kind: 'request', name, build, check };
  return {
    byName: false,
    transactionTimeoutMs: DEFAULT_TRANSACTION_TIMEOUT_MS,
    keepHeaders: false,
    entries: [entry],
    entryOf: () => entry,
    period: 1,
    prepare: () => {
      throw new Error('a one-request scenario sends no transaction');
    },
    checkOf: transactionCheckOf,
    sent,
    admit: () => null,
    threw: thrownText,
  };
}
