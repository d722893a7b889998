/**
 * The scenario as the engine runs it: per arrival number, an entry of the mix, either one request
 * (a builder and a check) or a transaction (run on the arrival's VU). Built the same way in the
 * main thread and in every engine worker, from the scenario module's path.
 */
import type { Check, RequestSpec, ResponseInfo, Row, Scenario, SentResponse, TransactionHttp } from './types.ts';
import { asLoaded, contextFactory, type ContextFactory, type LoadedSource } from './context.ts';
import { defaultScenario } from './default.ts';
import { loadScenario, prepare } from './load.ts';
import { verbatimPath } from './url-path.ts';
import { sampleArrivalCount, trafficOf, type Traffic, type TrafficEntry } from './traffic.ts';
import { entryOf, entrySeqOf, groupRanksOf, mixOrder, ranksOf, type MixOrder } from './mix-order.ts';
import { readerSeqOf } from './data-rows.ts';
import { NameBook } from './names.ts';
import {
  bodyCutText,
  bodyNotJson,
  CHECK_CANNOT_JUDGE,
  checkReturned,
  checkThrew,
  cutNote,
  notGiven,
  notKept,
} from './verdict.ts';
import { loadDataSources } from './data-load.ts';
import { bodyText, type Outcome } from '../engine/outcome.ts';
import { responseHeaders } from '../engine/response-headers.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';
import { requestSpecProblem } from './setting-problems.ts';
import { sentHeaders } from './header-values.ts';
import { loadThrowText, rowWrites, thrownText, type WrittenSource } from './row-writes.ts';
import { ScenarioMistake } from './mistake.ts';
import { CALLED_FIX, calledEnvText } from './scenario-env.ts';

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

export interface ScenarioRequests {
  scenario: Scenario;
  traffic: Traffic;
  arrivals: Arrivals;
  data: Record<string, LoadedSource>;
  /**
   * Preflight's sample arrival of entry i: its own ids and (for unique sources) a row the load never
   * uses, both by its number among the sample arrivals (`sampleNo`, from 0; i by default); `onRow`
   * is told each row it reads.
   */
  sample(i: number, sampleNo?: number, onRow?: (source: string, row: Row) => void): EntryRun;
}

export interface ScenarioOptions {
  env?: NodeJS.ProcessEnv;
  /** The key of the run's ids (environment.ts runIds); the run id by default, as for a generated one. */
  idKey?: string;
  /** http.maxBodyBytes: the most of a body a check or transaction sees. */
  maxBodyBytes?: number;
  /** http.transactionTimeoutMs (default DEFAULT_TRANSACTION_TIMEOUT_MS). */
  transactionTimeoutMs?: number;
  /** Think time on the run's clock. */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 30_000;

export async function scenarioRequests(
  path: string | null,
  targetUrl: string,
  runId: string,
  o: ScenarioOptions = {},
): Promise<ScenarioRequests> {
  const env = o.env ?? process.env;
  const scenario = path ? await loadScenario(path) : defaultScenario(targetUrl);
  const traffic = trafficOf(scenario);
  const data = loadDataSources(path, traffic.data, sampleArrivalCount(traffic));
  const origin = new URL(targetUrl).origin;
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const order = traffic.entries.length > 1 ? mixOrder(traffic.entries.map((e) => e.weight)) : null;
  const entrySeq = order && sequentialData(data) ? entrySeqFunction(order) : undefined;
  const names = traffic.entries.map((e) => e.name);
  const readerSeq = order ? readerSeqFunctions(data, order, names) : undefined;
  const transactionTimeoutMs = o.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
  const factory = (sample?: number, onRow?: (source: string, row: Row) => void, sampleEntry?: string) =>
    contextFactory(runId, scenario.ids?.prefix ?? '', env, {
      idKey: o.idKey,
      data,
      sleep: o.sleep,
      transactionTimeoutMs,
      sample,
      entrySeq,
      readerSeq,
      sampleEntry,
      onRow,
      secrets: scenario.secrets ?? [],
    });
  const mixed = traffic.entries.length > 1;
  const writes = rowWrites(writtenSources(data));
  const runs = (contexts: ContextFactory, mistake?: (err: unknown) => unknown) =>
    traffic.entries.map((e) => entryRun(e, contexts, origin, maxBodyBytes, mixed, mistake));
  const entries = runs(factory());
  const arrivals: Arrivals = {
    byName: traffic.byName,
    transactionTimeoutMs,
    keepHeaders: traffic.entries.some((e) => e.check !== undefined || e.run !== undefined),
    entries,
    entryOf: order ? (seq) => entries[entryOf(order, seq)] : () => entries[0],
    period: order ? order.table.length : 1,
    prepare: (spec, kept = KEPT_ALL) =>
      prepared(spec, origin, kept.body ? maxBodyBytes : 0, kept.headers, 'http.send(name, request)'),
    checkOf: transactionCheckOf,
    sent,
    admit: admission(traffic),
    threw: (err) => {
      return loadThrowText(thrownText(err), writes);
    },
  };
  return {
    scenario,
    traffic,
    arrivals,
    data,
    sample: (i, sampleNo = i, onRow) => {
      // the sources this sample arrival read: a write to a row is told of theirs
      const read = new Set<string>();
      const told = (source: string, row: Row) => {
        read.add(source);
        onRow?.(source, row);
      };
      return runs(factory(sampleNo, told, names[i]), (err) => sampleMistake(err, writes, read))[i];
    },
  };
}

/** Every data source as a write to its rows is told (row-writes.ts). */
function writtenSources(data: Record<string, LoadedSource>): WrittenSource[] {
  return Object.entries(data).map(([name, src]) => ({ name, csv: src.columns !== undefined, rows: src.rows }));
}

/**
 * What a sample arrival's code threw, as preflight shows it: a write to a row it read, or a call of
 * ctx.env, is a ScenarioMistake whose fix is the copy to make, or the record form (preflight shows
 * that fix instead of the module's general one); anything else as it was thrown.
 */
function sampleMistake(err: unknown, writes: ReturnType<typeof rowWrites>, read: ReadonlySet<string>): unknown {
  const message = thrownText(err);
  const w = writes(message, read);
  if (w)
    return new ScenarioMistake(
      `${message}: ${w.problem}`,
      `copy the row first and change the copy: ${w.copy} (${w.why})`,
    );
  const called = calledEnvText(message);
  return called ? new ScenarioMistake(called, CALLED_FIX) : err;
}

/** A data source read in order, whose rows an arrival takes by its number among its entry's. */
function sequentialData(data: Record<string, LoadedSource>): boolean {
  return Object.values(data).some((d) => d.order === 'sequential');
}

/** For each unique source with a readBy: arrival seq's number among its readers' (data-rows.ts readerSeqOf). */
function readerSeqFunctions(
  data: Record<string, LoadedSource>,
  order: MixOrder,
  names: readonly string[],
): Record<string, (seq: number) => number> {
  const out: Record<string, (seq: number) => number> = {};
  for (const [name, src] of Object.entries(data)) {
    if (!src.readBy) continue;
    const { rank, perPeriod } = groupRanksOf(
      order,
      names.map((n) => src.readBy!.includes(n)),
    );
    out[name] = readerSeqOf(name, src.readBy, names, (seq) => entryOf(order, seq), rank, perPeriod);
  }
  return out;
}

/** Arrival seq's number among its entry's (mix-order.ts entrySeqOf), its ranks laid out once. */
function entrySeqFunction(order: MixOrder): (seq: number) => number {
  const rank = ranksOf(order);
  return (seq) => entrySeqOf(order.whole, rank, entryOf(order, seq), seq);
}

function admission(traffic: Traffic): (name: unknown) => string | null {
  const book = new NameBook(traffic.entries.map((e) => ({ name: e.name, transaction: e.run !== undefined })));
  return (name) => book.problem(name);
}

/**
 * Entry e as the engine runs it. `mistake`, for preflight's sample arrivals (their requests' fields
 * checked too): what their code throws goes through it (sampleMistake), where the load's throws are
 * worded only when recorded (Arrivals.threw).
 */
function entryRun(
  e: TrafficEntry,
  contexts: ContextFactory,
  origin: string,
  maxBodyBytes: number,
  mixed: boolean,
  mistake?: (err: unknown) => unknown,
): EntryRun {
  if (e.run) {
    const run = e.run;
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
  const request = e.request!;
  const keep = e.checkReadsBody ? maxBodyBytes : 0;
  const headers = e.checkReadsHeaders;
  const check = e.check;
  // one view for every check of the entry (a check runs to its end before the next begins)
  const view = new ResponseView({ body: keep > 0, headers, bodyBytes: keep });
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
    check: check ? (o) => verdict(check, view.over(o)) : () => null,
  };
}

/** A sample arrival's spec, its fields checked (requestSpecProblem): the load's are not, per request. */
export function strictSpec(given: RequestSpec, at: string): RequestSpec {
  // a CSV row returned as the spec: read as the load reads it (context.ts asLoaded)
  const spec = asLoaded(given);
  const bad = requestSpecProblem(spec, at);
  if (bad !== null) throw new Error(bad);
  return spec;
}

/** Methods taken as they are (load.ts's prepare upper-cases and checks any other). */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * The request a spec makes, keeping what its check or transaction reads. The usual spec (a URL
 * verbatimPath takes, a method of METHODS, no body or a string one) is built here in one object,
 * a string body kept as the string it is (the socket client writes it with the head, where a
 * Buffer made of it would be read back into a string); any other goes through load.ts's prepare,
 * which parses, checks and names what is wrong. Both give the same fields in the same order.
 */
export function prepared(
  spec: RequestSpec,
  origin: string,
  keepBodyBytes: number,
  keepHeaders: boolean,
  what?: string,
): PreparedRequest {
  if (spec !== null && typeof spec === 'object') {
    const { url, method, body } = spec;
    const path = typeof url === 'string' ? verbatimPath(url, origin) : null;
    if (
      path !== null &&
      (method === undefined || METHODS.has(method)) &&
      (body === undefined || typeof body === 'string')
    )
      return {
        method: method ?? 'GET',
        path,
        headers: sentHeaders(spec.headers, what ?? 'request(ctx)'),
        body: body ?? null,
        keepBodyBytes,
        keepHeaders,
      };
  }
  const r = prepare(spec, origin, what);
  r.keepBodyBytes = keepBodyBytes;
  r.keepHeaders = keepHeaders;
  return r;
}

/** What a request kept for its check: the body (its check's text names body or json), the headers (names headers). */
export interface Kept {
  body: boolean;
  headers: boolean;
  /** The most of a body kept (http.maxBodyBytes): a body that fills it may have been cut. */
  bodyBytes?: number;
}
const KEPT_ALL: Kept = { body: true, headers: true };

/**
 * A check's verdict: true accepts; false, nothing or a message rejects; a throw is its message.
 * A check that reads what its request did not keep (through a helper, or a computed name) throws,
 * so it fails with the fix instead of judging an empty body (docs/decisions/028).
 */
export function checkOf(
  check: Check | undefined,
  o: Outcome,
  kept: Kept = KEPT_ALL,
  where: 'check' | 'transaction' = 'check',
): string | null {
  return check ? verdict(check, new ResponseView(kept, where).over(o)) : null;
}

/** A check given to http.send: what it may read is what its transaction's run reads (its own text does not count). */
function transactionCheckOf(check: Check | undefined, o: Outcome, kept: Kept = KEPT_ALL): string | null {
  return checkOf(check, o, kept, 'transaction');
}

function verdict(check: Check, res: ResponseView): string | null {
  let v: string | null;
  try {
    v = checkReturned(check(res));
  } catch (err) {
    v = checkThrew(err, err instanceof Error ? err.message : String(err));
  }
  return v === null ? null : v + res.cutNote(v);
}

/** The bytes of a body kept. */
function keptBytes(chunks: readonly Buffer[]): number {
  let n = 0;
  for (const c of chunks) n += c.length;
  return n;
}

/**
 * The response a check sees, over the VU's outcome (valid while the check runs): headers parsed
 * and the body decoded only when read. An entry's checks share one, set over each outcome in turn.
 */
class ResponseView implements ResponseInfo {
  private o!: Outcome;
  constructor(
    private readonly kept: Kept,
    private readonly where: 'check' | 'transaction' = 'check',
  ) {}
  over(o: Outcome): this {
    this.o = o;
    return this;
  }
  get status(): number {
    return this.o.status;
  }
  get headers(): Record<string, string | string[] | undefined> {
    if (!this.kept.headers) throw notGiven(notKept('headers', 'res.headers', this.where));
    return responseHeaders(this.o);
  }
  get body(): string {
    if (!this.kept.body) throw notGiven(notKept('body', 'res.body or res.json()', this.where));
    return bodyText(this.o);
  }
  get truncated(): boolean {
    if (!this.kept.body) throw notGiven(notKept('body', 'res.body or res.json()', this.where));
    return this.o.bytesIn > keptBytes(this.o.bodyChunks);
  }
  json(): any {
    return parseJson(this.body, this.o.bodyChunks, this.kept.bodyBytes);
  }
  text(): string {
    return this.body;
  }
  /**
   * What a rejection (`verdict`) adds when the body the check could read was cut: how much it saw
   * (cutNote). Not to a verdict plateau gave already (CHECK_CANNOT_JUDGE: a body not kept, or
   * JSON cut short, which says the fix itself).
   */
  cutNote(verdict: string): string {
    if (!this.kept.body || verdict.startsWith(CHECK_CANNOT_JUDGE)) return '';
    const seen = keptBytes(this.o.bodyChunks);
    return this.o.bytesIn > seen ? cutNote(seen, this.o.bytesIn) : '';
  }
}

/** The body as JSON; when it does not parse and filled what is kept of a body, the message says it was cut and the fix. */
function parseJson(text: string, chunks: readonly Buffer[], limit: number | undefined): any {
  try {
    return JSON.parse(text);
  } catch {
    const kept = chunks.reduce((a, c) => a + c.length, 0);
    if (limit !== undefined && limit > 0 && kept >= limit) throw notGiven(bodyCutText(limit));
    throw bodyNotJson(text.length === 0 ? 'empty' : JSON.stringify(text.slice(0, 60)));
  }
}

function sent(o: Outcome, error: string | null, kept: Kept = KEPT_ALL): SentResponse {
  return new Sent(o, error, kept);
}

/**
 * A transaction's response, decoded only when read. It keeps the outcome's arrays, not the
 * outcome: the VU's next request gives the outcome new ones (startOutcome), so these stay as they
 * were when the response ended.
 */
class Sent implements SentResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly #raw: Outcome['rawHeaders'];
  readonly #chunks: Buffer[];
  /** The body's size (Outcome.bytesIn): more than the chunks kept when it was cut. */
  readonly #total: number;
  #headers: Record<string, string | string[] | undefined> | undefined;
  #body: string | undefined;
  readonly #kept: Kept;
  constructor(o: Outcome, error: string | null, kept: Kept) {
    this.#kept = kept;
    this.status = o.status;
    this.ok = error === null;
    if (error !== null) this.error = error;
    // the socket client's parser refills one header array per connection: keep a copy of this one's
    this.#raw = o.rawHeaders ? (o.rawHeaders.slice() as Outcome['rawHeaders']) : null;
    // an empty array is the one the VU's next response fills (startOutcome swaps only a full one)
    this.#chunks = o.bodyChunks.length ? o.bodyChunks : [];
    this.#total = o.bytesIn;
  }
  get headers(): Record<string, string | string[] | undefined> {
    if (!this.#kept.headers) throw notGiven(notKept('headers', 'made.headers', 'transaction'));
    return (this.#headers ??= responseHeaders({ rawHeaders: this.#raw } as Outcome));
  }
  get body(): string {
    if (!this.#kept.body) throw notGiven(notKept('body', 'made.body or made.json()', 'transaction'));
    return (this.#body ??= bodyText({ bodyChunks: this.#chunks } as Outcome));
  }
  get truncated(): boolean {
    if (!this.#kept.body) throw notGiven(notKept('body', 'made.body or made.json()', 'transaction'));
    return this.#total > keptBytes(this.#chunks);
  }
  json(): any {
    return parseJson(this.body, this.#chunks, this.#kept.bodyBytes);
  }
  text(): string {
    return this.body;
  }
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
