/**
 * The stepped load: one engine run over the whole plan, each step judged as soon as its steady
 * window has closed, and the engine stopped on the first step that does not hold (the plateau),
 * so no time is spent past the knee.
 */
import type { BucketRecord, StepResult } from '../../analysis/types.ts';
import { judgeStep } from '../../analysis/judge.ts';
import { startNative } from '../engine/native.ts';
import { Schedule } from '../engine/schedule.ts';
import type { VuPool } from '../engine/vu-pool.ts';
import type { RunContext } from './context.ts';
import type { StageResult } from './stage.ts';

export const STEPS_PHASE = 'steps';

export interface StepsOutcome {
  judged: StepResult[];
  /** Index of the step running when the run was interrupted, else null. */
  interruptedAtStep: number | null;
}

export async function runSteps(ctx: RunContext, pool: VuPool, seqOffset: number): Promise<StageResult<StepsOutcome>> {
  const { plan } = ctx;
  const records: BucketRecord[] = [];
  const judged: StepResult[] = [];
  let lastTS = -1;
  const engine = startNative({
    schedule: new Schedule(plan.segments),
    phase: STEPS_PHASE,
    source: 'native/0',
    pool,
    build: ctx.build,
    check: ctx.check,
    seqOffset,
    gracefulStopMs: ctx.config.gracefulStopS * 1000,
    sink: (r) => {
      ctx.store.appendBucket(r);
      records.push(r);
      lastTS = r.tS;
      ctx.progress.bucket(r, plan.steps, plan.durationS);
      judgeDue(r.tS);
    },
  });

  function judgeDue(tS: number): void {
    while (judged.length < plan.steps.length && !ctx.interrupt.interrupted) {
      const step = plan.steps[judged.length];
      if (tS + 1 < step.steadyEndS) return;
      const res = judgeStep(step, judged.at(-1) ?? null, records, plan.rules);
      judged.push(res);
      ctx.progress.stepJudged(res, plan.steps.length);
      if (res.verdict !== 'holds') { engine.stop(ctx.config.gracefulStopS * 1000); return; }
    }
  }

  const off = ctx.interrupt.on(() => engine.stop(500));
  await engine.done;
  off();
  const interruptedAtStep = ctx.interrupt.interrupted ? (plan.steps.find((s) => lastTS < s.holdEndS)?.index ?? plan.steps.length - 1) : null;
  const failed = judged.find((s) => s.verdict !== 'holds');
  const detail = interruptedAtStep !== null
    ? `interrupted at step ${interruptedAtStep + 1} of ${plan.steps.length}`
    : failed
      ? `${judged.length} of ${plan.steps.length} steps run; step ${failed.index + 1} (${failed.ratePerSec} req/s) did not hold`
      : `all ${plan.steps.length} steps held`;
  return { value: { judged, interruptedAtStep }, detail, evidence: judged.map((s) => `step ${s.index + 1} at ${s.ratePerSec} req/s: ${s.throughputPerSec.toFixed(1)} achieved, ${s.verdict}`) };
}
