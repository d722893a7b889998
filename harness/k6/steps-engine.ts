/**
 * The k6 engine in the shape the steps stage drives (stop, done, elapsedS, a sink of buckets):
 * one k6 process per leg of the plan (the whole plan, or a confirmation rerun), its files under
 * runs/<id>/k6/leg-<startS>/, its buckets shifted to the leg's place on the run's timeline, and
 * k6's version and exit recorded in run.json.
 */
import path from 'node:path';
import type { BucketRecord } from '../../analysis/types.ts';
import type { RunContext } from '../pipeline/context.ts';
import type { Segment } from '../engine/schedule.ts';
import { startK6, type K6EngineRun } from './engine/process.ts';
import { envOfRun } from './engine/preflight.ts';

export const K6_WARMUP_SKIPPED = 'skipped with engine k6: k6 runs the plan in its own process, and the first step\'s ramp opens its connections';

/** leg.maxVUs: a rerun's raised bound (the steps stage doubles it when arrivals were dropped for want of VUs). */
export function startK6Steps(ctx: RunContext, leg: { segments: Segment[]; startS: number; maxVUs?: number }, phase: string, seqOffset: number, sink: (r: BucketRecord) => void, env: NodeJS.ProcessEnv = envOfRun(ctx.config)): K6EngineRun {
  const offsetS = Math.floor(leg.startS);
  const vus = { ...ctx.plan.vus, maxVUs: Math.max(ctx.plan.vus.maxVUs, leg.maxVUs ?? 0) };
  const run = startK6({
    config: ctx.config, plan: { segments: leg.segments, vus }, scenario: ctx.scenario, runId: ctx.runId,
    dir: path.join(ctx.store.dir, 'k6', `leg-${offsetS}`), phase, seqOffset, env,
    sink: (r) => sink(offsetS ? { ...r, tS: r.tS + offsetS } : r),
    note: (line) => ctx.progress.info(line),
  });
  run.done.then(({ exit }) => {
    ctx.store.update({ environment: { ...ctx.store.meta.environment, k6: exit.binary.version, k6Path: exit.binary.path, k6Exit: exit.meaning } });
  }, () => undefined);
  return run;
}
