/**
 * The stepped load. Each attempt is judged as soon as its steady window closes and the target's
 * metrics at its end are read, by the pure decision machine (analysis/decision.ts), which
 * classifies it and names the next action: go on, rerun the rate (with maxVUs raised when the
 * generator ran out of VUs), or stop. This stage only executes that action and stores the attempt
 * records; the report replays them from the evidence.
 */
import { performance } from 'node:perf_hooks';
import type {
  AttemptRecord,
  BucketRecord,
  DecisionPolicy,
  NextAction,
  RateUnit,
  StepResult,
  TrafficRecord,
  WarmupRecord,
} from '../../analysis/types.ts';
import { unitOf } from '../../analysis/format.ts';
import { decideAttempt } from '../../analysis/decision.ts';
import { unloadedOf, type Unloaded } from '../../analysis/target-saturated.ts';
import { attemptName } from '../../analysis/step-name.ts';
import { cutOf, cutWords, lastLoadS, type Cut } from '../../analysis/cut.ts';
import { refusedNamesError } from './refused-names.ts';
import { STEPS_PHASE } from '../../analysis/phases.ts';
import { EDGE_TOLERANCE_S } from '../../analysis/server-window.ts';
import type { LoadEngine } from '../engine/load-engine.ts';
import { Prober } from '../metrics/prober.ts';
import type { RunContext } from './context.ts';
import { legOf, type Leg, type LegStep } from './legs.ts';
import { CompleteSeconds } from './complete-seconds.ts';
import { promqlWindows } from '../metrics/promql-windows.ts';
import type { StageResult } from './stage.ts';
import { rerunVusBound } from '../engine/create.ts';
import { mixShares } from '../../analysis/entry-delivery.ts';
import { trafficSummary } from '../scenario/traffic.ts';
import { unsteadyStep } from '../../analysis/topology-unsteady.ts';

export { STEPS_PHASE };

/** How long a closed window's judging waits for the reading of its end edge (prober.ts's readingAt). */
const EDGE_READ_WAIT_MS = EDGE_TOLERANCE_S * 1000;

export interface StepsOutcome {
  judged: StepResult[];
  attempts: AttemptRecord[];
  /** Index of the step running when the run was interrupted, else null. */
  interruptedAtStep: number | null;
}

interface State {
  ctx: RunContext;
  engine: LoadEngine;
  policy: DecisionPolicy;
  t0Ms: number;
  records: BucketRecord[];
  judged: StepResult[];
  attempts: AttemptRecord[];
  prober: Prober | null;
  rttMs: number;
  /** The run's unloaded server time, from its warmup (analysis/target-saturated.ts). */
  unloaded: Unloaded | null;
  seq: number;
  lastTS: number;
}

/**
 * The rules and bounds the decision uses, from the config, and the mix's shares from the traffic
 * (each entry keeps up with its share: analysis/entry-delivery.ts): stored in run.json so a report
 * decides alike.
 */
export function decisionPolicy(
  ctx: Pick<RunContext, 'config' | 'plan'>,
  traffic?: Pick<TrafficRecord, 'entries'>,
): DecisionPolicy {
  const v = ctx.config.verdicts;
  const mix = mixShares(traffic);
  return {
    rules: mix ? { ...ctx.plan.rules, mix } : ctx.plan.rules,
    bounds: {
      lagP99MaxMs: v.lagP99MaxMs,
      loopDelayMaxMs: v.loopDelayMaxMs,
      generatorBusyMax: v.generatorBusyMax,
      tailFactor: v.tailFactor,
    },
    confirmFailedStep: v.confirmFailedStep,
    rerunContaminated: ctx.config.topology?.rerun ?? false,
    maxVUsBound: rerunVusBound(ctx.config),
  };
}

export async function runSteps(
  ctx: RunContext,
  engine: LoadEngine,
  seqOffset: number,
  rttMs: number,
  /** The warmup's record, when it ran: the unloaded figure a failed step's server median is read against. */
  warmup: WarmupRecord | null = null,
): Promise<StageResult<StepsOutcome>> {
  const policy = decisionPolicy(ctx, trafficSummary(ctx.requests.traffic));
  ctx.store.update({ policy });
  const st: State = {
    ctx,
    engine,
    policy,
    t0Ms: ctx.clock.now(),
    records: [],
    judged: [],
    attempts: [],
    prober: null,
    rttMs,
    unloaded: unloadedOf(warmup, rttMs, unitOf(ctx.plan.rules)),
    seq: seqOffset,
    lastTS: -1,
  };
  if (ctx.config.metrics?.url || ctx.config.topology) {
    st.prober = new Prober({
      config: ctx.config,
      phase: STEPS_PHASE,
      t0Ms: st.t0Ms,
      sink: (s) => ctx.store.appendProbe(s),
      clock: ctx.clock,
      read: ctx.readServer,
      isEdge: (tS) => st.attempts.some((e) => e.steadyStartS === tS || e.steadyEndS === tS || e.rampStartS === tS),
    });
    st.prober.start();
  }
  let leg: Leg | null = legOf(ctx.plan, 0, 0, 1);
  const notes: string[] = [];
  while (leg && !ctx.interrupt.interrupted) {
    // limits.maxDurationS counts the leg's load, from its first second to its schedule's end at most
    ctx.loadCap?.start(st.t0Ms + leg.startS * 1000, st.t0Ms + leg.steps.at(-1)!.holdEndS * 1000);
    if (ctx.interrupt.interrupted) break;
    const last = await runLeg(st, leg);
    ctx.loadCap?.end();
    leg = null;
    if (!last || ctx.interrupt.interrupted) break;
    notes.push(`step ${last.index + 1}: ${last.why}`);
    ctx.progress.info(`step ${last.index + 1}: ${last.why}`);
    if (last.action.kind === 'rerun') {
      engine.maxVUs = last.action.maxVUs;
      const startS = Math.ceil((ctx.clock.now() - st.t0Ms) / 1000) + 1;
      leg = legOf(ctx.plan, last.index, startS, last.attempt + 1);
    }
  }
  // the load is over: a signal from here (the PromQL settle and queries, the report) stops nothing
  ctx.interrupt.loadEnded = true;
  await st.prober?.stop();
  const unread = st.prober?.topologyUnread;
  // said on the stage's line (the report's stages table): a step judged without a reading may hide a change
  const unreadNote = unread?.count
    ? `; topology.command gave no number at ${unread.count} reading${unread.count > 1 ? 's' : ''} (last: ${unread.last}): a change of topology at those times could not be seen`
    : '';
  if (ctx.config.metrics?.prometheus && !ctx.interrupt.interrupted) {
    const pq = await promqlWindows(ctx.config, st.attempts, performance.timeOrigin + st.t0Ms);
    ctx.store.update({ promqlWindows: pq.windows });
    notes.push(
      `PromQL: ${pq.windows.length} steady windows read from ${ctx.config.metrics.prometheus.url}${pq.errors.length ? `; ${pq.errors.join('; ')}` : ''}`,
    );
  }
  const cut = ctx.interrupt.interrupted ? cutOf(st.attempts, lastLoadS(st.records), st.judged) : null;
  const interruptedAtStep = cut?.index ?? null;
  const attempts = st.attempts;
  ctx.store.update({ attempts });
  const unit = unitOf(ctx.plan.rules);
  // plateau refused names the scenario sent, or the threads' names passed the limit together (the
  // decision stopped there): the stage fails, with the run's data and report kept, and the run
  // exits as a failed stage, never as a measured limit
  for (const s of st.judged) {
    const refused = refusedNamesError(attemptName(s, unit), s);
    if (refused) throw refused;
  }
  const detail =
    (cut !== null
      ? cutDetail(st.judged, ctx.plan.steps.length, cut)
      : stepsDetail(st.judged, ctx.plan.steps.length, unit)) + unreadNote;
  const evidence = st.judged.map(
    (s) =>
      `step ${s.index + 1}${s.attempt && s.attempt > 1 ? ` (attempt ${s.attempt})` : ''} at ${s.ratePerSec} ${unit}: ${s.throughputPerSec.toFixed(1)} achieved, ${s.verdict}${s.transient ? ', transient' : ''}`,
  );
  return {
    value: { judged: st.judged, attempts, interruptedAtStep },
    detail,
    evidence: [...evidence, ...notes],
    interrupted: interruptedAtStep !== null,
  };
}

/** The steps stage's line for a run interrupted: where the cut fell, in the stop line's terms (analysis/cut.ts). */
export function cutDetail(judged: readonly StepResult[], planned: number, cut: Cut | null): string {
  return cutWords(cut, judged, {
    cut: (c, note) => `step ${c.index + 1} of ${planned}${note === '' ? '' : ` (${note})`}`,
    ended: (s) => `step ${s.index + 1}`,
  });
}

/** The steps stage in one line: interrupted, the step that did not hold, the one whose topology never held still, or how many held. */
export function stepsDetail(judged: readonly StepResult[], planned: number, unit: RateUnit = 'req/s'): string {
  const run = new Set(judged.map((s) => s.index)).size;
  const failedStep = judged.find((s) => s.verdict !== 'holds' && !s.transient && !s.contaminated);
  if (failedStep)
    return `${run} of ${planned} steps run; step ${failedStep.index + 1} (${failedStep.ratePerSec} ${unit}) did not hold`;
  const unsteady = unsteadyStep(judged);
  if (unsteady)
    return `${run} of ${planned} steps run; step ${unsteady.index + 1} (${unsteady.ratePerSec} ${unit}): the topology changed during every attempt at it`;
  // the engine ended early (k6 exited, buckets missing): say so, not "all held"
  return run < planned
    ? `${run} of ${planned} steps judged, all held; the other ${planned - run} produced no data`
    : `all ${planned} steps held`;
}

/** The attempt whose action ends a leg: rerun or stop. */
interface LegEnd {
  index: number;
  attempt: number;
  action: NextAction;
  why: string;
}

/** Runs one leg until its schedule ends, an attempt's action ends it, or the run is interrupted. */
async function runLeg(st: State, leg: Leg): Promise<LegEnd | null> {
  const { ctx } = st;
  const maxVUs = st.engine.maxVUs;
  const started = leg.steps.map((s): AttemptRecord => ({ ...s, maxVUs, action: null }));
  st.attempts.push(...started);
  // run.json holds the attempts as they run, so a process that dies mid-leg leaves its report them
  ctx.store.update({ attempts: st.attempts });
  let k = 0; // attempts judged
  let queued = 0; // attempts whose steady window has closed
  let end: LegEnd | null = null;
  let legDone = false;
  const complete = new CompleteSeconds(st.engine.instances);
  let judging = Promise.resolve();
  let judgeError: unknown = null;
  // Judged in order, each once its window's end edge is read: the judging's work (tens of ms, more
  // the first time) then cannot delay the reading that closes the server's window.
  const judgeClosed = async (a: AttemptRecord) => {
    await st.prober?.readingAt(a.steadyEndS, EDGE_READ_WAIT_MS);
    if (end || judgeError || ctx.interrupt.interrupted) return;
    k++;
    const i = st.attempts.indexOf(a);
    const d = judge(st, a);
    st.attempts[i] = { ...st.attempts[i], action: d.action };
    ctx.store.update({ attempts: st.attempts });
    if (d.action.kind === 'rerun' || d.action.kind === 'stop') {
      end = { index: d.result.index, attempt: d.result.attempt ?? 1, action: d.action, why: d.why ?? '' };
      if (!legDone) engine.stop(ctx.config.gracefulStopS * 1000);
    }
  };
  const sink = (r: BucketRecord) => {
    ctx.store.appendBucket(r);
    st.records.push(r);
    st.lastTS = Math.max(st.lastTS, r.tS);
    const { doneS, second } = complete.add(r);
    // once the leg is stopping, or past its schedule, a second is the part of one written at the stop
    if (second && doneS === r.tS && !end && r.tS < leg.steps.at(-1)!.holdEndS)
      ctx.progress.bucket(second, leg.steps, leg.steps.at(-1)!.holdEndS, undefined, ctx.plan.steps.length);
    while (
      !end &&
      queued < leg.steps.length &&
      doneS + 1 >= leg.steps[queued].steadyEndS &&
      !ctx.interrupt.interrupted
    ) {
      const a = started[queued++];
      judging = judging
        .then(() => judgeClosed(a))
        .catch((err: unknown) => {
          judgeError ??= err;
          if (!legDone) engine.stop(0);
        });
    }
  };
  const engine = st.engine.start({
    segments: leg.segments,
    phase: STEPS_PHASE,
    seqOffset: st.seq,
    t0Ms: st.t0Ms,
    offsetS: leg.startS,
    gracefulStopMs: ctx.config.gracefulStopS * 1000,
    sink,
  });
  const off = ctx.interrupt.on(() => engine.stop(500));
  st.seq = (await engine.done).lastSeq;
  legDone = true;
  await judging;
  off();
  if (judgeError) throw judgeError;
  // Attempts the leg never judged did not run, except the one an interruption cut short.
  const unjudged = new Set(started.slice(k).filter((s) => !ctx.interrupt.interrupted || s.rampStartS > st.lastTS));
  st.attempts = st.attempts.filter((a) => !unjudged.has(a));
  return end;
}

/** Decides an attempt once its steady window closed and its end edge was read: the machine's verdict, the progress line. */
function judge(st: State, a: AttemptRecord) {
  const server = st.prober ? { samples: st.prober.samples, rttMs: st.rttMs } : undefined;
  const evidence = {
    records: st.records,
    server,
    probes: st.prober?.samples ?? [],
    rttMs: st.rttMs,
    unloaded: st.unloaded,
  };
  const d = decideAttempt(st.judged, a, evidence, st.policy);
  st.judged = d.judged;
  st.ctx.progress.stepJudged(d.result, st.ctx.plan.steps.length, unitOf(st.ctx.plan.rules));
  return d;
}
