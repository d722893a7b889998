/**
 * Warmup: a moderate constant rate until throughput and median latency are stable over
 * consecutive windows (analysis/warmup.ts), bounded by a maximum time. It also opens the VUs'
 * connections, so the first measured step does not pay for them.
 */
import type { BucketRecord } from '../../analysis/types.ts';
import { warmupStable, warmupWindows, type WarmupVerdict } from '../../analysis/warmup.ts';
import type { LoadEngine } from '../engine/load-engine.ts';
import { CompleteSeconds } from './complete-seconds.ts';
import type { RunContext } from './context.ts';
import type { StageResult } from './stage.ts';

export const WARMUP_PHASE = 'warmup';

export function warmupRatePerSec(ctx: Pick<RunContext, 'config'>): number {
  return ctx.config.warmup.ratePerSec ?? Math.max(1, ctx.config.steps.startPerSec / 2);
}

/** The warmup's outcome: where the steps' sequence starts, its verdict and its buckets (for the threads stage). */
export interface Warmed { lastSeq: number; verdict: WarmupVerdict; records: BucketRecord[] }

export async function warmup(ctx: RunContext, load: LoadEngine): Promise<StageResult<Warmed>> {
  const w = ctx.config.warmup;
  const ratePerSec = warmupRatePerSec(ctx);
  const records: BucketRecord[] = [];
  let verdict: WarmupVerdict = { stable: false, windows: [], detail: 'no data' };
  const complete = new CompleteSeconds(load.instances);
  const lastFullS = w.maxS; // seconds 1..maxS are the hold; a later bucket is the partial one written at stop
  const engine = load.start({
    segments: [{ durationS: 1, fromPerSec: 0, toPerSec: ratePerSec }, { durationS: w.maxS, fromPerSec: ratePerSec, toPerSec: ratePerSec }],
    phase: WARMUP_PHASE,
    seqOffset: 0,
    gracefulStopMs: ctx.config.gracefulStopS * 1000,
    sink: (r) => {
      ctx.store.appendBucket(r);
      records.push(r);
      const { doneS, second } = complete.add(r);
      if (!second || doneS !== r.tS) return; // wait for every engine instance's bucket of this second
      ctx.progress.bucket(second, [], w.maxS + 1, `warmup at ${ratePerSec}/s`);
      if (verdict.stable || r.tS < 1 || r.tS > lastFullS || r.tS % w.windowS !== 0) return;
      // the first second is the ramp: windows start after it
      const shifted = records.filter((x) => x.tS >= 1).map((x) => ({ ...x, tS: x.tS - 1 }));
      verdict = warmupStable(warmupWindows(shifted, WARMUP_PHASE, w.windowS, r.tS), w.stableWindows, w.tolerance);
      if (verdict.stable) engine.stop(ctx.config.gracefulStopS * 1000);
    },
  });
  const off = ctx.interrupt.on(() => engine.stop(500));
  const { lastSeq } = await engine.done;
  off();
  const tookS = engine.elapsedS();
  const detail = verdict.stable
    ? `stable after ${tookS.toFixed(1)} s at ${ratePerSec} req/s: ${verdict.detail}`
    : `not stable within ${w.maxS} s at ${ratePerSec} req/s (${verdict.detail}); continuing, the first step may be noisy`;
  return { value: { lastSeq, verdict, records }, detail, evidence: verdict.windows.map((x) => `window at ${x.fromS + 1}s: ${x.throughputPerSec.toFixed(1)} req/s, p50 ${x.p50Ms?.toFixed(2) ?? 'n/a'} ms`) };
}
