/**
 * Builds the per-iteration ScenarioContext. Secrets are read from the environment once per name
 * and kept only in memory.
 */
import { createHmac, randomUUID, randomBytes } from 'node:crypto';
import { rowAt, type Rows } from './csv-rows.ts';
import type { DataOrder, IdFormat, Row, ScenarioContext } from './types.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { drawSeed, notAReaderFix, notAReaderProblem, noSuchSource, pickRow, spread } from './data-rows.ts';
import { thinkTimeFix, thinkTimeProblem } from './think-time.ts';
import { ScenarioMistake } from './mistake.ts';
import { scenarioEnv, type ScenarioEnv } from './scenario-env.ts';

export interface ContextFactory {
  (seq: number): ScenarioContext;
}

/** A data source's rows, loaded once per process (data-load.ts), shared read-only by every context. */
export interface LoadedSource {
  rows: Rows;
  order: DataOrder;
  /** The file, for messages. */
  file: string;
  /** Rows the load may use: a unique source keeps its last rows for preflight's sample arrivals. */
  usable: number;
  /** A CSV source's header (every row has exactly these fields); absent for JSON, whose rows may differ. */
  columns?: readonly string[];
  /** A unique source's readBy: the mix entries whose arrivals alone take its rows. */
  readBy?: readonly string[];
  /** A random source's seed, as given (its draws follow it, data-rows.ts drawSeed); absent: the run id. */
  seed?: string | number;
}

export interface ContextOptions {
  /** The key of the run's ids (environment.ts runIds); the run id by default, as for a generated one. */
  idKey?: string;
  data?: Record<string, LoadedSource>;
  /** Think time: the run's clock (simulated in tests). */
  sleep?: (ms: number) => Promise<void>;
  /** http.transactionTimeoutMs: ctx.sleep refuses longer think time, which could only time its transaction out. */
  transactionTimeoutMs?: number;
  /**
   * Preflight's sample arrival number `sample` (0-based; traffic.ts sampleArrivalCount): its ids are
   * suffixed so no two samples share one, and other sources than unique ones give it row `sample`.
   */
  sample?: number;
  /**
   * The kept row (data-rows.ts sampleRowSlot) a unique source gives this try of the sample arrival:
   * row usable + sampleRow, never one the load uses nor another try's; `sample` when not given.
   */
  sampleRow?: number;
  /** Arrival seq's number among its own entry's (mix-order.ts entrySeqOf): what a sequential source's rows follow. */
  entrySeq?: (seq: number) => number;
  /**
   * By the name of each unique source with a readBy: arrival seq's number among its readers'
   * arrivals (data-rows.ts readerSeqOf), which throws for an arrival of another entry.
   */
  readerSeq?: Record<string, (seq: number) => number>;
  /** The entry a sample arrival runs: a source's readBy is checked against it. */
  sampleEntry?: string;
  /** Told each row a sample arrival reads (preflight: row-names.ts looks for names built from them). */
  onRow?: (source: string, row: Row) => void;
  /** The scenario's `secrets`: ctx.env holds only these (scenario-env.ts); a key ctx.hmacSha256 reads that is not among them is told to be listed. */
  secrets?: readonly string[];
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * ctx.sleep: its argument checked as on k6 (thinkTimeProblem) before the engine's sleep. The load
 * reads the message; preflight shows the fix of what was given (a NaN, a negative, too long) on its
 * fix line.
 */
function checkedSleep(sleep: (ms: number) => Promise<void>, deadlineMs?: number): (ms: number) => Promise<void> {
  return (ms) => {
    const bad = thinkTimeProblem(ms, deadlineMs);
    if (bad !== null) throw new ScenarioMistake(bad, thinkTimeFix(ms));
    return sleep(ms);
  };
}

export function contextFactory(
  runId: string,
  idPrefix = '',
  env: NodeJS.ProcessEnv = process.env,
  opts: ContextOptions = {},
): ContextFactory {
  const keys = new Map<string, Buffer>();
  const keyOf = (name: string): Buffer => {
    let k = keys.get(name);
    if (!k) {
      const v = env[name];
      if (v === undefined || v === '') {
        // an undeclared key is checked by no preflight and scrubbed from no file: it is told to be listed
        const listed = opts.secrets?.includes(name) ?? true;
        throw new PlateauError(
          `environment variable ${name} is not set`,
          listed
            ? `export ${name}=<secret> before the run (secrets come only from the environment)`
            : `export ${name}=<secret> before the run, and list it in the scenario's secrets (secrets: [${JSON.stringify(name)}]), so that preflight checks it before anything is sent and its value is scrubbed from every file and log`,
          'secret-missing',
          EXIT.preflight,
        );
      }
      k = Buffer.from(v, 'utf8');
      keys.set(name, k);
    }
    return k;
  };
  const shared: Shared = {
    runId,
    idKey: opts.idKey ?? runId,
    idPrefix: opts.sample === undefined ? idPrefix : `${idPrefix}p${opts.sample}-`,
    keyOf,
    env: scenarioEnv(opts.secrets ?? [], env),
    data: opts.data ?? {},
    seeds: new Map(Object.entries(opts.data ?? {}).map(([name, src]) => [name, drawSeed(runId, src.seed)])),
    sleep: checkedSleep(opts.sleep ?? realSleep, opts.transactionTimeoutMs),
    sample: opts.sample,
    sampleRow: opts.sampleRow,
    entrySeq: opts.entrySeq ?? ((seq) => seq),
    readerSeq: opts.readerSeq ?? {},
    sampleEntry: opts.sampleEntry,
    onRow: opts.onRow,
  };
  return (seq: number): ScenarioContext => new Context(shared, seq);
}

interface Shared {
  runId: string;
  idKey: string;
  idPrefix: string;
  keyOf(name: string): Buffer;
  env: ScenarioEnv;
  data: Record<string, LoadedSource>;
  /** Each source's seed of its random draws (drawSeed), by its name. */
  seeds: ReadonlyMap<string, number>;
  sleep(ms: number): Promise<void>;
  sample: number | undefined;
  sampleRow: number | undefined;
  entrySeq(seq: number): number;
  readerSeq: Record<string, (seq: number) => number>;
  sampleEntry: string | undefined;
  onRow: ((source: string, row: Row) => void) | undefined;
}

/** The row of source `name` for arrival seq; throws (the arrival fails, kind other) naming the fix. */
function rowOf(s: Shared, name: string, seq: number): Row {
  const src = Object.hasOwn(s.data, name) ? s.data[name] : undefined;
  if (!src) throw new Error(noSuchSource(name, Object.keys(s.data)));
  if (s.sample !== undefined) {
    if (src.readBy && s.sampleEntry !== undefined && !src.readBy.includes(s.sampleEntry))
      throw new ScenarioMistake(notAReaderProblem(name, s.sampleEntry, src.readBy), notAReaderFix(name, s.sampleEntry));
    const i =
      src.order === 'unique'
        ? Math.min(src.rows.length - 1, src.usable + (s.sampleRow ?? s.sample))
        : s.sample % src.rows.length;
    const row = rowAt(src.rows, i)!;
    s.onRow?.(name, row);
    return src.columns ? strictRow(row, src.columns, name, src.file) : row;
  }
  // a readBy's numbering: none in a mix of one entry
  const readerOf = src.readBy ? s.readerSeq[name] : undefined;
  return rowAt(src.rows, pickRow(name, src, seq, s.seeds.get(name)!, s.entrySeq, readerOf))!;
}

/** What a row may be asked for beyond its columns: what JSON.stringify, await and a template literal look up. */
const ROW_LOOKUPS = new Set(['toJSON', 'then']);

/**
 * A CSV row for preflight's sample arrivals: reading a column the header does not have throws,
 * naming the header, so `ctx.row('accounts').nmae` fails before load instead of sending
 * "undefined" in every request. Only the samples: the load reads the rows as they are.
 *
 * A frozen copy of the row whose prototype is the guard (a Proxy): its columns are its own, so it
 * copies as the row does (a spread, JSON, structuredClone, which refuses a Proxy itself: a row
 * wrapped in one had failed preflight with "#<Object> could not be cloned"), and only a key it
 * lacks reaches the guard.
 */
function strictRow(row: Row, columns: readonly string[], name: string, file: string): Row {
  const guard = new Proxy(
    {},
    {
      get(target, key, receiver) {
        if (typeof key === 'symbol' || key in target || ROW_LOOKUPS.has(key)) return Reflect.get(target, key, receiver);
        throw new Error(
          `ctx.row(${JSON.stringify(name)}).${key}: ${file} has no column "${key}"; its columns are ${columns.map((c) => `"${c}"`).join(', ')} (a column only some files have: test ${JSON.stringify(key)} in the row first)`,
        );
      },
    },
  );
  const copy = Object.create(guard) as Row;
  // its own (not enumerable, so no copy takes them): V8 names it '#<Object>' in a write's message, as
  // the load's row, where a lookup through the guard read '[object Object]'
  for (const [key, value] of [
    ['constructor', Object],
    ['toString', Object.prototype.toString],
  ] as const)
    if (!Object.hasOwn(row, key)) Object.defineProperty(copy, key, { value });
  // defined, not assigned: an assignment of a column named __proto__ would set the copy's prototype
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(row));
  loadRows.set(copy, row);
  return Object.freeze(copy);
}

/** Each guarded copy's row as the load has it (strictRow). */
const loadRows = new WeakMap<object, Row>();

/**
 * The load's row where `v` is a sample's guarded copy of one, else `v`: plateau's own reads of what
 * the scenario gave it (a row returned as the request itself, whose method and body it reads
 * whether or not the CSV has them) are not the scenario's reads, and must not be refused.
 */
export function asLoaded<T>(v: T): T {
  return v !== null && typeof v === 'object' ? ((loadRows.get(v) as T | undefined) ?? v) : v;
}

/**
 * One iteration's context. Built for every request, so it costs two fields: its functions are
 * getters on the prototype that make their closure only when the scenario reads them (and work
 * destructured, `({ seq, uniqueId }) => ...`, as well as called on ctx).
 */
class Context implements ScenarioContext {
  readonly #s: Shared;
  constructor(
    s: Shared,
    readonly seq: number,
  ) {
    this.#s = s;
  }
  get runId(): string {
    return this.#s.runId;
  }
  get env(): ScenarioEnv {
    return this.#s.env;
  }
  get uniqueId(): (format?: IdFormat) => string {
    const s = this.#s;
    const seq = this.seq;
    return (format: IdFormat = 'seq') => formatId(format, s.idPrefix, s.idKey, seq);
  }
  get pick(): (keySpace?: number, salt?: string | number) => number {
    const seq = this.seq;
    return (keySpace = 100_000, salt) => spread(seq, keySpace, salt);
  }
  get row(): (name: string) => Row {
    const s = this.#s;
    const seq = this.seq;
    return (name) => rowOf(s, name, seq);
  }
  get sleep(): (ms: number) => Promise<void> {
    return this.#s.sleep;
  }
  get hmacSha256(): (name: string, body: string | Uint8Array) => string {
    const keyOf = this.#s.keyOf;
    return (name, body) => createHmac('sha256', keyOf(name)).update(body).digest('hex');
  }
}

/** The id a sequence number gets (idKey: the run's, environment.ts runIds); also used by preflight to find the longest id of a run. */
export function formatId(format: IdFormat, prefix: string, idKey: string, seq: number): string {
  if (format === 'uuidv4') return randomUUID();
  if (format === 'uuidv7') return uuidv7();
  return `${prefix}${idKey}-${seq}`;
}

/** RFC 9562 UUIDv7: 48-bit Unix ms timestamp, version 7, variant 10, random rest. */
export function uuidv7(nowMs = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
