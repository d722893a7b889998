/**
 * The k6 default function: one iteration is one arrival of the scenario's traffic, the same as on
 * the native engine. This file is bundled into the k6 script and runs inside k6 (no Node APIs).
 *   seq   = seqOffset + scenario.iterationInTest + 1: iterationInTest is unique across every
 *           instance of an execution-segmented run, so ids never collide between machines;
 *   entry = traffic.entries[entryOf(seq)]: the same smooth weighted order over the global arrival
 *           number as the native engine (harness/scenario/mix-order.ts), laid out once per process
 *           and shared by the VUs (order.ts);
 *   a request entry sends with http.request; a transaction awaits run(ctx, http), each
 *   http.send on http.asyncRequest (the default function is async then).
 * When results are per name (traffic.byName), each arrival adds one sample to the Trend
 * `plateau_arrival`: its duration (ms) tagged { name, outcome: 'ok' | ErrorKind, transaction },
 * which the k6 output ingest reads as the arrival; requests carry `tags.name`. A scenario of one
 * request entry writes no plateau_arrival (each request is its arrival); an arrival of it whose
 * request(ctx) threw adds 1 to the Counter `plateau_unsent`, which the ingest counts as a failed
 * arrival (kind other) that sent no request.
 */
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';
import { trafficOf, type Traffic, type TrafficEntry } from '../../scenario/traffic.ts';
import type { Scenario, ScenarioContext } from '../../scenario/types.ts';
import type { RuntimeConfig } from './config.ts';
import { contextOf, type RowSource } from './context.ts';
import { scenarioEnv } from '../../scenario/scenario-env.ts';
import { openSources } from './data.ts';
import { sharedEntryOf, sharedEntrySeqOf, sharedReaderSeqOf } from './order.ts';
import { messageOf, warnOnce } from './response.ts';
import { sendNow } from './send.ts';
import { runTransaction, type ArrivalResult } from './transaction.ts';
import { NameBook } from '../../scenario/names.ts';
import type { RunIds } from '../../run-ids.ts';
import { idsAtStart } from './ids.ts';
import { withTargetFrom } from './target.ts';

export type { RuntimeConfig } from './config.ts';

/**
 * k6's setup() of a script written for the user (cfg.idsAtStart): the k6 run's ids, once for the
 * test, said on k6's console so that the user can find them in the target's data (k6's type
 * definitions declare no console, hence the lookup, as response.ts warnOnce).
 */
export function setupIds(cfg: RuntimeConfig): RunIds {
  const ids = idsAtStart(cfg.idsAtStart ?? { maxSeq: 0 }, cfg.idPrefix, __ENV);
  const c = (globalThis as unknown as Record<string, { log?(m: string): void } | undefined>)['console'];
  if (c && typeof c.log === 'function') c.log(`plateau: run ${ids.runId}: ids ${cfg.idPrefix}${ids.idKey}-<seq>`);
  return ids;
}

const arrivalTrend = new Trend('plateau_arrival', true);
/** A one-request script's arrival whose request(ctx) threw (the ingest's UNSENT_METRIC). */
const unsentCounter = new Counter('plateau_unsent');
/** A send refused for its name, its message in the `error` tag (the ingest's REFUSED_NAME_METRIC). */
const refusedNameCounter = new Counter('plateau_refused_name');

function oneRequest(entry: TrafficEntry, ctx: ScenarioContext, cfg: RuntimeConfig, byName: boolean): ArrivalResult {
  const name = byName ? entry.name : (cfg.requestName ?? entry.name);
  const checkName = byName ? `${name}: check` : (cfg.checkName ?? `${name}: check`);
  const sent = sendNow(
    entry.request!(ctx),
    { name, checkName, check: entry.check, keep: { body: entry.checkReadsBody, headers: entry.checkReadsHeaders } },
    cfg,
  );
  return sent.failure
    ? { outcome: sent.failure.kind, durationMs: sent.durationMs, message: sent.failure.message }
    : { outcome: 'ok', durationMs: sent.durationMs };
}

/**
 * A request entry's arrival: a throw (its request builder's, a row used up) costs the arrival,
 * kind other, unsent; `rows` words it (a write to a row: RowSource.threw).
 */
function guarded(
  entry: TrafficEntry,
  ctx: ScenarioContext,
  cfg: RuntimeConfig,
  rows: RowSource,
  byName = true,
): ArrivalResult {
  try {
    return oneRequest(entry, ctx, cfg, byName);
  } catch (err) {
    return { outcome: 'other', durationMs: 0, message: rows.threw(messageOf(err)), unsent: true };
  }
}

/** Its own function so that the bundled JavaScript reads `run` on a parameter (checkJs infers no TrafficEntry there). */
function isTransaction(entry: TrafficEntry): boolean {
  return entry.run !== undefined;
}

/** One arrival of a run with transactions. */
function arrive(
  entry: TrafficEntry,
  ctx: ScenarioContext,
  cfg: RuntimeConfig,
  names: NameBook,
  rows: RowSource,
): ArrivalResult | Promise<ArrivalResult> {
  return entry.run
    ? runTransaction(
        { name: entry.name, run: entry.run, reads: entry.runReads },
        ctx,
        cfg,
        names,
        lateSend,
        refusedName,
        (message) => rows.threw(message),
      )
    : guarded(entry, ctx, cfg, rows);
}

function record(entry: TrafficEntry, r: ArrivalResult): void {
  arrivalTrend.add(r.durationMs, {
    name: entry.name,
    outcome: r.outcome,
    // 'unsent': a one-request entry that failed before sending, counted under its name by the ingest
    transaction: isTransaction(entry) ? 'true' : r.unsent ? 'unsent' : 'false',
  });
  if (r.outcome === 'other' && r.message) warnOnce(`${entry.name}: ${r.message}`);
}

/**
 * A send its transaction made after the arrival ended: a plateau_arrival sample tagged transaction
 * 'late' under the send's name, which the ingest counts as that name's failed request (kind
 * other) and not as an arrival, as the native engine counts it.
 */
function lateSend(name: string, message: string): void {
  arrivalTrend.add(0, { name, outcome: 'other', transaction: 'late' });
  warnOnce(message);
}

/** This VU's first refusal was tagged with its message: the later ones add to the count without one (a tag per name would be a series each). */
let refusalTagged = false;

/** A send refused for its name: counted apart by the ingest, the VU's first message in the `error` tag and on k6's console once. */
function refusedName(message: string): void {
  if (refusalTagged) refusedNameCounter.add(1);
  else refusedNameCounter.add(1, { error: message.slice(0, REFUSAL_SHOWN) });
  refusalTagged = true;
  warnOnce(message);
}

/** The most of a refusal's message the tag keeps, as the native engine's samples do (recorder.ts MAX_MESSAGE). */
const REFUSAL_SHOWN = 300;

/** Call it in k6's init context: it reads the data files (open) and builds the traffic once per VU. */
export function iteration(scenario: Scenario, written: RuntimeConfig): (started?: RunIds) => void | Promise<void> {
  // a script written for the user loads PLATEAU_TARGET's address where k6 is given one (target.ts)
  const cfg = withTargetFrom(written, __ENV);
  const traffic: Traffic = trafficOf(scenario);
  const env = scenarioEnv(scenario.secrets ?? [], __ENV);
  const weights = traffic.entries.map((e) => e.weight);
  // the data first, then the order (its ranks only for a sequential source, a unique source's
  // readers' for one with a readBy): SharedArrays in that order
  let entrySeq = (seq: number) => seq;
  const readerSeq: Record<string, (seq: number) => number> = {};
  const data = cfg.data ?? {};
  const rows = openSources(data, cfg.runId, (seq) => entrySeq(seq), readerSeq);
  const entryOf = sharedEntryOf(weights);
  if (Object.values(data).some((d) => d.order === 'sequential')) entrySeq = sharedEntrySeqOf(weights, entryOf);
  const entryNames = traffic.entries.map((e) => e.name);
  for (const name of Object.keys(data)) {
    const readBy = data[name].readBy;
    if (readBy && entryNames.length > 1)
      readerSeq[name] = sharedReaderSeqOf(name, readBy, weights, entryNames, entryOf);
  }
  // plateau's own ids when it drives k6; else setup()'s, which k6 passes to every call (ids.ts)
  const fixed: RunIds | null = cfg.idKey === undefined ? null : { runId: cfg.runId, idKey: cfg.idKey };
  const arrival = (started: RunIds | undefined) => {
    const seq = cfg.seqOffset + exec.scenario.iterationInTest + 1;
    const ids = started ?? fixed;
    if (ids === null) throw new Error('plateau: no id key: this script derives its ids in setup(); run it with k6 run');
    return { entry: traffic.entries[entryOf(seq)], ctx: contextOf(cfg, ids, seq, rows, env) };
  };
  if (!traffic.byName) {
    return (started?: RunIds) => {
      const { entry, ctx } = arrival(started);
      const r = guarded(entry, ctx, cfg, rows, false);
      // the arrival failed before sending (request(ctx) threw, a unique row ran out): counted, not lost
      if (r.unsent) {
        unsentCounter.add(1);
        warnOnce(`${entry.name}: ${r.message}`);
      }
    };
  }
  if (!traffic.entries.some(isTransaction)) {
    return (started?: RunIds) => {
      const { entry, ctx } = arrival(started);
      record(entry, guarded(entry, ctx, cfg, rows));
    };
  }
  const names = new NameBook(traffic.entries.map((e) => ({ name: e.name, transaction: isTransaction(e) })));
  return async (started?: RunIds) => {
    const { entry, ctx } = arrival(started);
    record(entry, await arrive(entry, ctx, cfg, names, rows));
  };
}
