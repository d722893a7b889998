/**
 * The stepped load. Each step is judged the moment its steady window closes; a step that fails is
 * classified before it counts (analysis/verdicts.ts): generator-bound (resize the VUs and rerun,
 * or stop: never capacity), topology changed (rerun), or confirmed by one rerun at the same rate.
 * The run stops at the first confirmed failure, so no time is spent past the knee.
 */
import { performance } from 'node:perf_hooks';
import type { BucketRecord, StepPlan, StepResult } from '../../analysis/types.ts';
import { judgeNext, markGeneratorLimited } from '../../analysis/judge.ts';
import { heldAndCounts } from '../../analysis/stop.ts';
import { afterFailure, classifyFailure, heldButGeneratorLimited, topologyChanged, type AfterFailure } from '../../analysis/verdicts.ts';
import { startK6Steps } from '../k6/steps-engine.ts';
import type { LoadEngine } from '../engine/load-engine.ts';
import { Prober } from '../metrics/prober.ts';
import type { RunContext } from './context.ts';
import { legOf, type Leg } from './legs.ts';
import { CompleteSeconds } from './complete-seconds.ts';
import { promqlWindows } from '../metrics/promql-windows.ts';
import type { StageResult } from './stage.ts';
import { rerunVusBound } from '../k6/segment.ts';

export const STEPS_PHASE = 'steps';

export interface StepsOutcome {
  judged: StepResult[];
  executed: StepPlan[];
  /** Index of the step running when the run was interrupted, else null. */
  interruptedAtStep: number | null;
}

interface State {
  ctx: RunContext;
  engine: LoadEngine;
  t0Ms: number;
  records: BucketRecord[];
  judged: StepResult[];
  executed: StepPlan[];
  prober: Prober | null;
  rttMs: number;
  seq: number;
  lastTS: number;
}

export async function runSteps(ctx: RunContext, engine: LoadEngine, seqOffset: number, rttMs: number): Promise<StageResult<StepsOutcome>> {
  const st: State = { ctx, engine, t0Ms: performance.now(), records: [], judged: [], executed: [], prober: null, rttMs, seq: seqOffset, lastTS: -1 };
  if (ctx.config.metrics?.url || ctx.config.topology) {
    st.prober = new Prober({
      config: ctx.config, phase: STEPS_PHASE, t0Ms: st.t0Ms, sink: (s) => ctx.store.appendProbe(s),
      isEdge: (tS) => st.executed.some((e) => e.steadyStartS === tS || e.steadyEndS === tS || e.rampStartS === tS),
    });
    st.prober.start();
  }
  let leg: Leg | null = legOf(ctx.plan, 0, 0, 1);
  const notes: string[] = [];
  while (leg && !ctx.interrupt.interrupted) {
    const failed = await runLeg(st, leg);
    leg = null;
    if (!failed || ctx.interrupt.interrupted) break;
    const decision = decide(st, failed);
    notes.push(`step ${failed.index + 1}: ${decision.why}`);
    ctx.progress.info(`step ${failed.index + 1}: ${decision.why}`);
    if (decision.action === 'rerun') {
      engine.maxVUs = decision.maxVUs;
      const startS = Math.ceil((performance.now() - st.t0Ms) / 1000) + 1;
      leg = legOf(ctx.plan, failed.index, startS, (failed.attempt ?? 1) + 1);
    }
  }
  await st.prober?.stop();
  if (ctx.config.metrics?.prometheus && !ctx.interrupt.interrupted) {
    const pq = await promqlWindows(ctx.config, st.executed, performance.timeOrigin + st.t0Ms);
    ctx.store.update({ promqlWindows: pq.windows });
    notes.push(`PromQL: ${pq.windows.length} steady windows read from ${ctx.config.metrics.prometheus.url}${pq.errors.length ? `; ${pq.errors.join('; ')}` : ''}`);
  }
  const interruptedAtStep = ctx.interrupt.interrupted ? (st.executed.find((s) => st.lastTS < s.holdEndS)?.index ?? null) : null;
  const executed = st.executed;
  ctx.store.update({ executed });
  const detail = stepsDetail(st.judged, ctx.plan.steps.length, interruptedAtStep);
  const evidence = st.judged.map((s) => `step ${s.index + 1}${s.attempt ? ` (attempt ${s.attempt})` : ''} at ${s.ratePerSec} req/s: ${s.throughputPerSec.toFixed(1)} achieved, ${s.verdict}${s.transient ? ', transient' : ''}`);
  return { value: { judged: st.judged, executed, interruptedAtStep }, detail, evidence: [...evidence, ...notes] };
}

/** The steps stage in one line: interrupted, the step that did not hold, or how many held. */
export function stepsDetail(judged: readonly StepResult[], planned: number, interruptedAtStep: number | null): string {
  if (interruptedAtStep !== null) return `interrupted at step ${interruptedAtStep + 1} of ${planned}`;
  const run = new Set(judged.map((s) => s.index)).size;
  const failedStep = judged.find((s) => s.verdict !== 'holds' && !s.transient && !s.contaminated);
  if (failedStep) return `${run} of ${planned} steps run; step ${failedStep.index + 1} (${failedStep.ratePerSec} req/s) did not hold`;
  // the engine ended early (k6 exited, buckets missing): say so, not "all held"
  return run < planned ? `${run} of ${planned} steps judged, all held; the other ${planned - run} produced no data` : `all ${planned} steps held`;
}

/** Runs one leg until its schedule ends, a step fails, or the run is interrupted; returns the failed step. */
async function runLeg(st: State, leg: Leg): Promise<StepResult | null> {
  const { ctx } = st;
  st.executed.push(...leg.steps);
  let k = 0;
  let failed: StepResult | null = null;
  const complete = new CompleteSeconds(ctx.config.engine === 'k6' ? 1 : st.engine.instances);
  const sink = (r: BucketRecord) => {
      ctx.store.appendBucket(r);
      st.records.push(r);
      st.lastTS = Math.max(st.lastTS, r.tS);
      const { doneS, second } = complete.add(r);
      if (second && doneS === r.tS) ctx.progress.bucket(second, leg.steps, leg.steps.at(-1)!.holdEndS, undefined, ctx.plan.steps.length);
      while (!failed && k < leg.steps.length && doneS + 1 >= leg.steps[k].steadyEndS && !ctx.interrupt.interrupted) {
        const res = judgeAndFlag(st, leg.steps[k++]);
        const rerunContaminated = res.contaminated && ctx.config.topology?.rerun && (res.attempt ?? 1) === 1;
        if (res.verdict !== 'holds' || rerunContaminated) { failed = res; engine.stop(ctx.config.gracefulStopS * 1000); }
      }
  };
  const engine = ctx.config.engine === 'k6' ? startK6Steps(ctx, { ...leg, maxVUs: st.engine.maxVUs }, STEPS_PHASE, st.seq, sink) : st.engine.start({
    segments: leg.segments, phase: STEPS_PHASE, seqOffset: st.seq, t0Ms: st.t0Ms, offsetS: leg.startS,
    gracefulStopMs: ctx.config.gracefulStopS * 1000, sink,
  });
  const off = ctx.interrupt.on(() => engine.stop(500));
  st.seq = (await engine.done).lastSeq;
  off();
  // Steps the leg never judged are not executed, except the one an interruption cut short.
  const unjudged = leg.steps.slice(k).filter((s) => !ctx.interrupt.interrupted || s.rampStartS > st.lastTS);
  for (const s of unjudged) st.executed.splice(st.executed.indexOf(s), 1);
  return failed;
}

/** Judges a step, marks topology contamination, and marks an earlier failed attempt transient when this rerun holds. */
function judgeAndFlag(st: State, step: StepPlan): StepResult {
  const server = st.prober ? { samples: st.prober.samples, rttMs: st.rttMs } : undefined;
  const topo = st.prober ? topologyChanged(st.prober.samples, STEPS_PHASE, step.rampStartS, step.steadyEndS) : { changed: false, values: [] };
  if (topo.changed) Object.assign(step, { contaminated: true, note: `topology changed during the step (${topo.values.join(' -> ')})` });
  let res = judgeNext(step, st.judged, st.records, st.ctx.plan.rules, server);
  const limited = heldButGeneratorLimited(res, st.ctx.config.verdicts);
  if (limited) {
    step.generatorLimited = limited; // kept in run.json, so a re-rendered report says it too
    res = markGeneratorLimited(res, limited);
  }
  if (res.verdict === 'holds' && (step.attempt ?? 1) > 1) {
    const earlier = st.executed.find((e) => e.index === step.index && e !== step && !e.transient);
    const earlierRes = st.judged.find((j) => j.index === step.index && !j.transient);
    if (earlier) earlier.transient = true;
    if (earlierRes) earlierRes.transient = true;
  }
  st.judged.push(res);
  st.ctx.progress.stepJudged(res, st.ctx.plan.steps.length);
  return res;
}

function decide(st: State, failed: StepResult): AfterFailure {
  const { config } = st.ctx;
  const v = config.verdicts;
  // The tail is judged against the first step that held, never against the failed step itself.
  const baseline = st.judged.find(heldAndCounts) ?? null;
  const cls = classifyFailure(failed, baseline, st.rttMs, v);
  const decision = afterFailure(cls, failed.contaminated === true, failed.attempt ?? 1, {
    confirmFailedStep: v.confirmFailedStep, rerunContaminated: config.topology?.rerun ?? false, maxVUs: st.engine.maxVUs, maxVUsBound: rerunVusBound(config),
  });
  const step = st.executed.find((e) => e.index === failed.index && (e.attempt ?? 1) === (failed.attempt ?? 1) && !e.transient);
  if (step && decision.generatorBound) Object.assign(step, { generatorBound: true, note: cls.detail });
  // A symptom the target caused (VUs ran out waiting on it) is said, so no warning blames the generator.
  else if (step && cls.symptom && !cls.inconclusive) Object.assign(step, { waitedOnTarget: true, note: cls.detail });
  else if (step && cls.inconclusive) Object.assign(step, { inconclusive: true, note: cls.detail });
  if (decision.generatorBound) Object.assign(failed, { generatorBound: true });
  return decision;
}
