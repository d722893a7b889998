/**
 * Warmup: a moderate constant rate until throughput and median latency are stable over
 * consecutive windows (analysis/warmup.ts), bounded by a maximum time and never shorter than
 * warmup.minS. With a topology probe set it also waits until the topology read one value over
 * those windows (elastic layers settle under moderate load, and a step judged while they move is
 * contaminated anyway). It also opens the VUs' connections, so the first measured step does not
 * pay for them.
 */
import { WARMUP_PHASE } from '../../analysis/phases.ts';
import { unitOf } from '../../analysis/format.ts';
import { refusedNamesOf } from '../../analysis/buckets.ts';
import { refusedNamesError } from './refused-names.ts';
import { MAX_NAMES } from '../../analysis/names-limit.ts';
import { namesSeen, namesSpreadBy } from '../../analysis/names-spread.ts';
import type { BucketRecord, WarmupRecord } from '../../analysis/types.ts';
import { Schedule } from '../../analysis/schedule.ts';
import type { Plan } from '../../analysis/plan.ts';
import type { PlateauConfig } from '../config/schema.ts';
import {
  topologySteady,
  warmupDone,
  warmupRecord,
  warmupStable,
  warmupWindows,
  type WarmupVerdict,
} from '../../analysis/warmup.ts';
import type { LoadEngine } from '../engine/load-engine.ts';
import { engineKind } from '../engine/create.ts';
import { Prober } from '../metrics/prober.ts';
import { CompleteSeconds } from './complete-seconds.ts';
import type { RunContext } from './context.ts';
import type { StageResult } from './stage.ts';

/** The warmup's first second ramps from 0 to its rate; the stability windows start after it. */
const RAMP_S = 1;

/** Seconds of the warmup's schedule: its 1 s ramp, then its rate for warmup.maxS at most. */
export function warmupScheduleS(config: PlateauConfig): number {
  return RAMP_S + config.warmup.maxS;
}

export function warmupRatePerSec(ctx: Pick<RunContext, 'config'>): number {
  return ctx.config.warmup.ratePerSec ?? Math.max(1, ctx.config.steps.startPerSec / 2);
}

/** Whether a run of this config warms up: enabled, on an engine that has a warmup (run.ts skips the stage otherwise). */
export function warmupRuns(config: PlateauConfig): boolean {
  return config.warmup.enabled && engineKind(config).capabilities.warmup;
}

/**
 * The most arrivals a run of this plan can make, the warmup's (its 1 s ramp counted at full
 * rate, when one runs) and the steps' (sequence numbers, ids and unique rows are checked
 * against it).
 */
export function maxPlannedArrivals(config: PlateauConfig, plan: Plan): number {
  const warmupArrivals = warmupRuns(config) ? Math.ceil(warmupRatePerSec({ config }) * warmupScheduleS(config)) : 0;
  return new Schedule(plan.segments).totalArrivals + warmupArrivals;
}

/**
 * What a unique data source must cover: the plan's arrivals and a rerun of every step (a failed
 * step is confirmed, a generator-bound one rerun with more VUs). A run that reruns more can still
 * use its rows up: those arrivals then fail (kind other) with the source named.
 */
export function maxArrivalsWithReruns(config: PlateauConfig, plan: Plan): number {
  return maxPlannedArrivals(config, plan) + new Schedule(plan.segments).totalArrivals;
}

/** The warmup's outcome: where the steps' sequence starts, its verdict and its buckets (for the threads stage). */
export interface Warmed {
  lastSeq: number;
  verdict: WarmupVerdict;
  records: BucketRecord[];
  record: WarmupRecord;
}

interface Judged {
  verdict: WarmupVerdict;
  topology: { steady: boolean; values: number[] } | null;
  waitingFor: string | null;
  done: boolean;
}

export async function warmup(ctx: RunContext, load: LoadEngine): Promise<StageResult<Warmed>> {
  const w = ctx.config.warmup;
  const ratePerSec = warmupRatePerSec(ctx);
  const records: BucketRecord[] = [];
  /** The names every thread sent so far. */
  const names = new Set<string>();
  let judged: Judged = {
    verdict: { stable: false, windows: [], detail: 'no data' },
    topology: null,
    waitingFor: 'data',
    done: false,
  };
  const complete = new CompleteSeconds(load.instances);
  const lastFullS = w.maxS; // seconds 1..maxS are the hold; a later bucket is the partial one written at stop
  const t0Ms = ctx.clock.now(); // the phase's t = 0 for the engine and the prober alike
  const prober = ctx.config.topology
    ? new Prober({
        config: ctx.config,
        phase: WARMUP_PHASE,
        t0Ms,
        sink: (s) => ctx.store.appendProbe(s),
        clock: ctx.clock,
        read: ctx.readServer,
        isEdge: (tS) => (tS - RAMP_S) % w.windowS === 0, // each window's edge
      })
    : null;
  prober?.start();
  const engine = load.start({
    segments: [
      { durationS: RAMP_S, fromPerSec: 0, toPerSec: ratePerSec },
      { durationS: w.maxS, fromPerSec: ratePerSec, toPerSec: ratePerSec },
    ],
    phase: WARMUP_PHASE,
    t0Ms,
    seqOffset: 0,
    gracefulStopMs: ctx.config.gracefulStopS * 1000,
    sink: (r) => {
      ctx.store.appendBucket(r);
      records.push(r);
      // plateau refused names the scenario sent, or the threads' names passed the limit together:
      // nothing the warmup measures from here is the target's
      for (const n of Object.keys(r.byName ?? {})) names.add(n);
      if (r.refusedNames !== undefined || names.size > MAX_NAMES) engine.stop(ctx.config.gracefulStopS * 1000);
      const { doneS, second } = complete.add(r);
      if (!second || doneS !== r.tS) return; // wait for every engine instance's bucket of this second
      if (judged.done || r.tS > lastFullS) return; // the part of a second written at the stop: no figure to print or judge
      ctx.progress.bucket(second, [], w.maxS + 1, `warmup at ${ratePerSec}/s`);
      if (r.tS < RAMP_S || r.tS % w.windowS !== 0) return;
      judged = judge(ctx, records, r.tS, prober);
      if (judged.done) engine.stop(ctx.config.gracefulStopS * 1000);
    },
  });
  const off = ctx.interrupt.on(() => engine.stop(500));
  const { lastSeq } = await engine.done;
  off();
  await prober?.stop();
  const tookS = engine.elapsedS();
  // the steps would size their VUs and threads from arrivals plateau failed itself: the run stops here
  const spread = namesSpreadBy(namesSeen(records, WARMUP_PHASE), { holdEndS: Infinity });
  const refused = refusedNamesError('warmup', {
    ...refusedNamesOf(records),
    ...(spread !== null ? { namesSpread: spread } : {}),
  });
  if (refused) throw refused;
  const record = warmupRecord(judged.verdict, judged.done, tookS, ratePerSec, RAMP_S);
  return {
    value: { lastSeq, verdict: judged.verdict, records, record },
    detail: detailOf(ctx, judged, tookS, ratePerSec, prober),
    evidence: judged.verdict.windows.map(
      (x) =>
        `window at ${x.fromS + RAMP_S}s: ${x.throughputPerSec.toFixed(1)} ${unitOf(ctx.plan.rules)}, p50 ${x.p50Ms?.toFixed(2) ?? 'n/a'} ms`,
    ),
    warmup: record,
    interrupted: !judged.done && ctx.interrupt.interrupted,
  };
}

/** The verdict once second `tS` (phase clock) is complete: stability, the topology over the same windows, minS. */
function judge(ctx: RunContext, records: readonly BucketRecord[], tS: number, prober: Prober | null): Judged {
  const w = ctx.config.warmup;
  const shifted = records.filter((x) => x.tS >= RAMP_S).map((x) => ({ ...x, tS: x.tS - RAMP_S }));
  const verdict = warmupStable(
    warmupWindows(shifted, WARMUP_PHASE, w.windowS, tS),
    w.stableWindows,
    w.tolerance,
    unitOf(ctx.plan.rules),
  );
  // The stable windows' span on the phase clock: from the first of the last `stableWindows` to now.
  const fromS = (verdict.windows.slice(-w.stableWindows)[0]?.fromS ?? 0) + RAMP_S;
  const topology = prober ? topologySteady(prober.samples, WARMUP_PHASE, fromS, tS + 1) : null;
  // maxS bounds minS: a floor beyond the schedule's end would leave a stable target unstable.
  const { done, waitingFor } = warmupDone({
    verdict,
    elapsedS: tS + 1,
    minS: Math.min(w.minS, w.maxS + RAMP_S),
    topology,
  });
  return { verdict, topology, waitingFor, done };
}

function detailOf(ctx: RunContext, j: Judged, tookS: number, ratePerSec: number, prober: Prober | null): string {
  const w = ctx.config.warmup;
  const topo = !j.topology
    ? ''
    : j.topology.steady
      ? `; topology steady at ${j.topology.values[0]} over the last ${w.stableWindows} windows`
      : `; topology ${j.topology.values.length ? `not steady (read ${j.topology.values.join(' -> ')})` : `not read${prober?.lastError ? ` (${prober.lastError})` : ''}`}`;
  const floor = w.minS > 0 ? `; warmup.minS ${w.minS} s` : '';
  const clipped =
    w.minS > w.maxS + RAMP_S
      ? ` (warmup.minS ${w.minS} s exceeds warmup.maxS ${w.maxS} s plus the ${RAMP_S} s ramp: maxS bounds it)`
      : '';
  const unit = unitOf(ctx.plan.rules);
  if (j.done) return `stable after ${tookS.toFixed(1)} s at ${ratePerSec} ${unit}: ${j.verdict.detail}${topo}${floor}`;
  // stopped by Ctrl-C or SIGTERM: it did not run its course, and nothing continues after it
  if (ctx.interrupt.interrupted)
    return `interrupted after ${tookS.toFixed(1)} s at ${ratePerSec} ${unit}, before it was stable (${j.verdict.detail}${topo})`;
  return `not stable within ${w.maxS} s at ${ratePerSec} ${unit} (${j.verdict.detail}${topo}; waiting for ${j.waitingFor ?? 'data'})${clipped}; continuing, the first step may be noisy`;
}
