/**
 * The step decision as a pure state machine. In: the attempts judged so far and the evidence of a
 * new one (its buckets, the probe samples, the RTT); out: the new attempt's classification and the
 * next action. The steps stage executes the action and stores the attempt record; a report replays
 * the stored attempts through the same function, so every classification is re-derived from the
 * evidence and nothing is pasted back from what the live run decided.
 *
 *   holds                       delivery and capture met, the generator within its bounds
 *   holds, generator-limited    met, but the generator was over its bounds (counted; the gate refuses it);
 *                               drops while the target's tail grew are the target's (waitedOnTarget), not this
 *   fails                       the target's limit; rerun once to confirm, or stop
 *   transient                   failed, and the rerun at its rate held
 *   generator-bound             failed with a generator symptom while the target's tail stayed low
 *   inconclusive                failed with a symptom and no step held before it to judge the tail by
 *   contaminated                the topology changed inside the attempt: left out, rerun when configured;
 *                               a rerun contaminated too stops the run (topology-unsteady.ts)
 */
import { judgeStep, steadyWindowS } from './judge.ts';
import { withServer, type ServerInput } from './judge-server.ts';
import type { Durations } from './durations.ts';
import { heldAndCounts } from './deciding-steps.ts';
import { nameStopWhy } from './no-limit-stops.ts';
import { namesSeen, namesSpreadBy, type NamesSeen } from './names-spread.ts';
import { STEPS_PHASE } from './phases.ts';
import { afterFailure } from './after-failure.ts';
import { generatorLimitedText, generatorSaturated } from './generator-symptoms.ts';
import { topologyChanged } from './topology-changed.ts';
import { neverHeldStill, unsteadyWhy } from './topology-unsteady.ts';
import type { Unloaded } from './target-saturated.ts';
import { classifyFailure, heldSymptoms, waitedOnTargetText, type FailureClass } from './verdicts.ts';
import type { AttemptRecord, AnalysedRecord, DecisionPolicy, NextAction, ServerSample, StepResult } from './types.ts';

export type { DecisionPolicy };

export interface Evidence {
  records: readonly AnalysedRecord[];
  /** The target's own readings (samples, PromQL windows) when metrics were read. */
  server?: ServerInput;
  /** Probe samples that carry the topology reading (probes.ndjson). */
  probes: readonly Pick<ServerSample, 'tS' | 'phase' | 'topology'>[];
  /** The fastest HTTP round trip: the client's tail is judged net of it. */
  rttMs: number;
  /** The records' durations decoded once (a report's analysis); absent, each window decodes its own (a live run). */
  durations?: Durations;
  /** The steps' names by first second, from the records before a report folds those past the limit; absent, read from `records`. */
  namesSeen?: NamesSeen;
  /** The run's unloaded server time (target-saturated.ts: the warmup's); absent or null without a warmup that gives one. */
  unloaded?: Unloaded | null;
}

/** The results of the attempts judged so far, in the order they ran (classifications as they stand now). */
export type Judged = readonly StepResult[];

export interface Decision {
  /** The results with the new attempt appended (and an earlier attempt marked transient when this rerun held). */
  judged: StepResult[];
  result: StepResult;
  action: NextAction;
  /** Why a failed attempt leads to its action, in words (the stage's evidence and the progress line). */
  why: string | null;
}

/** The step a new one is compared with: the last that held and counts, else the last judged. */
function counting(judged: Judged): StepResult | null {
  for (let i = judged.length - 1; i >= 0; i--) if (heldAndCounts(judged[i])) return judged[i];
  return judged.at(-1) ?? null;
}

/** Judges an attempt's steady window, with the server's view and the topology reading. */
function judgeAttempt(a: AttemptRecord, judged: Judged, ev: Evidence, policy: DecisionPolicy): StepResult {
  const spread = namesSpreadBy(ev.namesSeen ?? namesSeen(ev.records), a);
  const base = withServer(
    {
      ...judgeStep(a, counting(judged), ev.records, policy.rules, ev.durations?.windowSum(steadyWindowS(a))),
      ...(spread !== null ? { namesSpread: spread } : {}),
      attempt: a.attempt,
    },
    a,
    ev.server,
    policy.rules.minTailSamples,
    ev.records,
  );
  const topo = topologyChanged(ev.probes, STEPS_PHASE, a.rampStartS, a.steadyEndS);
  if (!topo.changed) return topo.values.length === 1 ? { ...base, topology: topo.values[0] } : base;
  return {
    ...base,
    contaminated: true,
    topologyValues: topo.values,
    reasons: [...base.reasons, `topology changed during the step (${topo.values.join(' -> ')})`],
  };
}

/** A rerun that held marks the earlier failed attempt at its rate transient (a held one rerun for its topology stays as it was). */
function markTransient(judged: Judged, r: StepResult): StepResult[] {
  if (r.verdict !== 'holds' || (r.attempt ?? 1) <= 1) return [...judged];
  const i = judged.findIndex((j) => j.index === r.index && !j.transient && j.verdict !== 'holds');
  return i === -1 ? [...judged] : judged.map((j, k) => (k === i ? { ...j, transient: true } : j));
}

/**
 * Decides one attempt. `recorded` is the action the live run stored for it: null means it was never
 * decided (an interruption cut it short), so it is judged but not classified as a failure.
 */
export function decideAttempt(
  judged: Judged,
  a: AttemptRecord,
  ev: Evidence,
  policy: DecisionPolicy,
  recorded?: NextAction | null,
): Decision {
  let r = judgeAttempt(a, judged, ev, policy);
  if (generatorSaturated(r, policy.bounds) !== null) r = { ...r, generatorSaturated: true };
  const baseline = judged.find(heldAndCounts) ?? null;
  if (r.verdict === 'holds') r = heldWithSymptoms(r, baseline, ev, policy);
  const before = markTransient(judged, r);
  // plateau failed arrivals itself (names it refused), or the threads' names passed the limit
  // together: nothing further is the target's to judge
  const nameStop = nameStopWhy(r);
  if (nameStop !== null && recorded !== null)
    return { judged: [...before, r], result: r, action: { kind: 'stop' }, why: nameStop };
  // the topology changed under every attempt at this rate: it never held still, held or failed
  if (r.contaminated === true && recorded !== null && neverHeldStill([...before, r], r.index))
    return {
      judged: [...before, r],
      result: r,
      action: { kind: 'stop' },
      why: unsteadyWhy([...before, r], r.index),
    };
  const failed =
    r.verdict !== 'holds' || (r.contaminated === true && policy.rerunContaminated && (r.attempt ?? 1) === 1);
  if (!failed || recorded === null)
    return {
      judged: [...before, r],
      result: r,
      action: recorded === null ? { kind: 'none' } : { kind: 'go-on' },
      why: null,
    };
  const cls = classifyFailure(r, baseline, ev.rttMs, policy.bounds, policy.rules, ev.unloaded ?? null);
  const after = afterFailure(cls, r.contaminated === true, r.attempt ?? 1, {
    confirmFailedStep: policy.confirmFailedStep,
    rerunContaminated: policy.rerunContaminated,
    maxVUs: a.maxVUs,
    maxVUsBound: policy.maxVUsBound,
    imported: policy.rules.imported === true,
  });
  r = whoseLimit(r, cls, after.generatorBound);
  const action: NextAction = after.action === 'rerun' ? { kind: 'rerun', maxVUs: after.maxVUs } : { kind: 'stop' };
  return { judged: [...before, r], result: r, action, why: after.why };
}

/**
 * A held attempt with the generator's symptoms judged as a failed one's are (verdicts.ts
 * heldSymptoms): drops the target's grown tail caused say so (waitedOnTarget), anything else over
 * the generator's bounds makes it generator-limited.
 */
function heldWithSymptoms(
  r: StepResult,
  baseline: StepResult | null,
  ev: Pick<Evidence, 'rttMs' | 'unloaded'>,
  policy: DecisionPolicy,
): StepResult {
  const { generatorLimited, waited } = heldSymptoms(
    r,
    baseline,
    ev.rttMs,
    policy.bounds,
    policy.rules.minTailSamples,
    ev.unloaded ?? null,
  );
  const reasons = [
    ...r.reasons,
    ...(waited !== null ? [waitedOnTargetText(r, waited)] : []),
    ...(generatorLimited ? [generatorLimitedText(generatorLimited, r)] : []),
  ];
  return {
    ...r,
    reasons,
    ...(waited !== null ? { waitedOnTarget: true } : {}),
    ...(generatorLimited ? { generatorLimited } : {}),
  };
}

/**
 * A failed attempt with whose limit it was: the generator's (generator-bound), the target's while
 * the generator showed a symptom (its VUs waited on it), or nobody's yet (inconclusive: no step held
 * before it). A held attempt (rerun for its topology) failed nothing and is returned as it is.
 */
function whoseLimit(r: StepResult, cls: FailureClass, generatorBound: boolean): StepResult {
  if (r.verdict === 'holds') return r;
  const said = {
    reasons: [...r.reasons, cls.detail],
    verdictDetail: cls.detail,
    ...(cls.symptomCode ? { generatorSymptom: cls.symptomCode } : {}),
  };
  if (generatorBound) return { ...r, ...said, generatorBound: true };
  // A symptom the target caused (VUs ran out waiting on it) is said, so no warning blames the generator.
  if (cls.symptom && !cls.inconclusive) return { ...r, ...said, waitedOnTarget: true };
  if (cls.inconclusive) return { ...r, ...said, inconclusive: true };
  return r;
}

export interface Replay {
  steps: StepResult[];
  /** Attempts (step index, attempt) whose re-derived action differs from the one the live run took. */
  differs: { index: number; attempt: number; recorded: NextAction; derived: NextAction }[];
}

/** Every stored attempt through the machine, in the order they ran. */
export function replayAttempts(attempts: readonly AttemptRecord[], ev: Evidence, policy: DecisionPolicy): Replay {
  let judged: StepResult[] = [];
  const differs: Replay['differs'] = [];
  for (const a of attempts) {
    const d = decideAttempt(judged, a, ev, policy, a.action === null ? null : undefined);
    judged = d.judged;
    if (a.action && a.action.kind !== 'none' && !sameAction(a.action, d.action))
      differs.push({ index: a.index, attempt: a.attempt, recorded: a.action, derived: d.action });
  }
  return { steps: judged, differs };
}

function sameAction(a: NextAction, b: NextAction): boolean {
  return a.kind === b.kind && (a.kind !== 'rerun' || (b.kind === 'rerun' && a.maxVUs === b.maxVUs));
}
