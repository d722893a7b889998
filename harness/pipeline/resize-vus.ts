/**
 * Once a warmup ran, the VUs are sized by Little's law from its measured time per arrival (the
 * whole transaction, think time and round trip included) where that is longer than
 * vus.expectedServiceMs + RTT: a 300 ms service no longer starts with VUs sized for 50 ms. A
 * faster one keeps the larger sizing (its tail grows near the knee). A count the config (or --vus,
 * --max-vus) gives is kept and the other is still sized from the warmup: a given vus.max caps the
 * preallocated VUs sized from it, a given vus.preAllocated floors the max sized from it. Nothing is
 * re-sized where the config gives both.
 */
import { sizeVus, vusGiven } from '../../analysis/plan.ts';
import { unitOf } from '../../analysis/format.ts';
import { aggregate } from '../../analysis/buckets.ts';
import { arrivalTime, sizingArrivalMs } from '../../analysis/arrival-time.ts';
import { WARMUP_PHASE } from '../../analysis/phases.ts';
import type { TrafficRecord } from '../../analysis/types.ts';
import type { LoadEngine } from '../engine/load-engine.ts';
import type { RunContext } from './context.ts';
import type { Warmed } from './warmup.ts';

export function resizeVusFromWarmup(
  ctx: RunContext,
  pool: Pick<LoadEngine, 'maxVUs' | 'reserve'>,
  warmed: Pick<Warmed, 'record' | 'records'>,
): void {
  const { config, store } = ctx;
  const given = vusGiven(config.vus);
  const traffic = store.meta.traffic;
  const sizedFrom = (from: NonNullable<TrafficRecord['sizedFrom']>) => {
    if (!traffic) return {};
    const { vusGiven: _, ...rest } = traffic;
    return {
      traffic: {
        ...rest,
        sizedFrom: from,
        ...(given === 'max' || given === 'preAllocated' ? { vusGiven: given } : {}),
      },
    };
  };
  if (given === 'both') {
    store.update(sizedFrom('given'));
    return;
  }
  const windows = warmed.record.windows;
  const from = windows[Math.max(0, windows.length - config.warmup.stableWindows)]?.fromS;
  const agg = from === undefined ? null : aggregate(warmed.records, WARMUP_PHASE, from, Number.MAX_SAFE_INTEGER);
  const t =
    agg === null
      ? null
      : arrivalTime(
          agg,
          ctx.requests.traffic.entries.map((e) => e.name),
        );
  const rttMs = store.meta.rtt?.httpMedianMs ?? null;
  // the plan's: preflight's samples where they sized it (a transaction's own time), else the configured
  const planned = ctx.sampledArrivalMs ?? config.vus.expectedServiceMs + (rttMs ?? 0);
  const sized = sizingArrivalMs(t, planned);
  if ('kept' in sized) {
    const vus = { ...ctx.plan.vus, reason: `${ctx.plan.vus.reason} (kept: ${sized.kept})` };
    ctx.plan = { ...ctx.plan, vus };
    store.update({ vus, ...sizedFrom(ctx.sampledArrivalMs !== undefined ? 'samples' : 'expectedServiceMs') });
    return;
  }
  const vus = sizeVus(config, rttMs, sized.ms, unitOf(ctx.plan.rules));
  ctx.plan = { ...ctx.plan, vus };
  pool.maxVUs = vus.maxVUs;
  pool.reserve(vus.preAllocatedVUs);
  store.update({ vus, ...sizedFrom('warmup') });
  ctx.progress.info(`VUs: ${vus.preAllocatedVUs} preallocated, max ${vus.maxVUs} (${vus.reason})`);
}
