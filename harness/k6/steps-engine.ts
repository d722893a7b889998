/**
 * The k6 engine in its old shape, startK6Steps(ctx, leg, ...), kept for harness/pipeline/steps.ts
 * until it calls engine.start() for every engine (the K6Engine in ./engine/k6-engine.ts, which the
 * factory makes for engine k6). Remove this file then.
 */
import type { BucketRecord } from '../../analysis/types.ts';
import type { RunContext } from '../pipeline/context.ts';
import type { Segment } from '../../analysis/schedule.ts';
import type { K6EngineRun } from './engine/process.ts';
import { envOfRun } from './engine/preflight.ts';
import { K6Engine } from './engine/k6-engine.ts';

export { K6_WARMUP_SKIPPED } from './engine/kind.ts';

/** leg.maxVUs: a rerun's raised bound (the steps stage doubles it when arrivals were dropped for want of VUs). */
export function startK6Steps(ctx: RunContext, leg: { segments: Segment[]; startS: number; maxVUs?: number }, phase: string, seqOffset: number, sink: (r: BucketRecord) => void, env: NodeJS.ProcessEnv = envOfRun(ctx.config)): K6EngineRun {
  const engine = new K6Engine({ config: ctx.config, plan: ctx.plan, scenario: ctx.scenario, runId: ctx.runId, env, store: ctx.store, note: (line) => ctx.progress.info(line) });
  engine.maxVUs = leg.maxVUs ?? ctx.plan.vus.maxVUs;
  return engine.start({ segments: leg.segments, phase, seqOffset, offsetS: leg.startS, gracefulStopMs: ctx.config.gracefulStopS * 1000, sink });
}
