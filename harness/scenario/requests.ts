/**
 * The scenario loaded for a run: its module (or the default one request to the target), its
 * traffic and data sources, the arrivals the native engine runs (arrivals.ts), and preflight's
 * sample arrivals, each with ids and rows of its own. Built the same way in the main thread and in
 * every engine worker, from the scenario module's path.
 */
import type { Row, Scenario } from './types.ts';
import { contextFactory, type ContextFactory, type LoadedSource } from './context.ts';
import { defaultScenario } from './default.ts';
import { loadScenario } from './load.ts';
import { sampleArrivalCount, sampleRowsKept, trafficOf, type Traffic } from './traffic.ts';
import { entryOf, entrySeqOf, groupRanksOf, mixOrder, ranksOf, type MixOrder } from './mix-order.ts';
import { readerSeqOf, sampleRowSlot } from './data-rows.ts';
import { NameBook } from './names.ts';
import { loadDataSources } from './data-load.ts';
import { loadThrowText, rowWrites, thrownText, type WrittenSource } from './row-writes.ts';
import { ScenarioMistake } from './mistake.ts';
import { CALLED_FIX, calledEnvText } from './scenario-env.ts';
import { DEFAULT_TRANSACTION_TIMEOUT_MS, entryRun, type Arrivals, type EntryRun } from './arrivals.ts';
import { KEPT_ALL, sent, transactionCheckOf } from './responses.ts';
import { prepared } from './prepared.ts';

export interface ScenarioRequests {
  scenario: Scenario;
  traffic: Traffic;
  arrivals: Arrivals;
  data: Record<string, LoadedSource>;
  /**
   * Preflight's sample arrival of entry i: its own ids, by its number among the sample arrivals
   * (`sampleNo`, from 0; i by default), and for unique sources a row the load never uses, nor any
   * other try of a sample arrival (`tryNo`, from 0: data-rows.ts sampleRowSlot); `onRow` is told
   * each row it reads.
   */
  sample(i: number, sampleNo?: number, onRow?: (source: string, row: Row) => void, tryNo?: number): EntryRun;
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

export async function scenarioRequests(
  path: string | null,
  targetUrl: string,
  runId: string,
  o: ScenarioOptions = {},
): Promise<ScenarioRequests> {
  const env = o.env ?? process.env;
  const scenario = path ? await loadScenario(path) : defaultScenario(targetUrl);
  const traffic = trafficOf(scenario);
  const data = loadDataSources(path, traffic.data, sampleRowsKept(traffic));
  const origin = new URL(targetUrl).origin;
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const order = traffic.entries.length > 1 ? mixOrder(traffic.entries.map((e) => e.weight)) : null;
  const entrySeq = order && sequentialData(data) ? entrySeqFunction(order) : undefined;
  const names = traffic.entries.map((e) => e.name);
  const readerSeq = order ? readerSeqFunctions(data, order, names) : undefined;
  const transactionTimeoutMs = o.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
  const samples = sampleArrivalCount(traffic);
  const factory = (sample?: number, onRow?: (source: string, row: Row) => void, sampleEntry?: string, tryNo = 0) =>
    contextFactory(runId, scenario.ids?.prefix ?? '', env, {
      idKey: o.idKey,
      data,
      sleep: o.sleep,
      transactionTimeoutMs,
      sample,
      sampleRow: sample === undefined ? undefined : sampleRowSlot(sample, tryNo, samples),
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
    sample: (i, sampleNo = i, onRow, tryNo = 0) => {
      // the sources this sample arrival read: a write to a row is told of theirs
      const read = new Set<string>();
      const told = (source: string, row: Row) => {
        read.add(source);
        onRow?.(source, row);
      };
      return runs(factory(sampleNo, told, names[i], tryNo), (err) => sampleMistake(err, writes, read))[i];
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
