/**
 * The run's warnings in words: each names the step, the figure, and what to do. The analysis
 * makes them as values (analysis/warnings.ts); this is the one place they are worded.
 */
import {
  fmtCountShare,
  fmtInt,
  fmtMs,
  fmtMsOver,
  fmtRate,
  fmtRatio,
  fmtSecondsOver,
  fmtShare,
  fmtShareOver,
  fmtTarget,
  rateUnitOf,
  stepList,
  quoted,
  stepNo,
  stepText,
  unitCounts,
} from '../analysis/format.ts';
import { percentileLabel } from '../analysis/percentiles.ts';
import type { RateUnit, RunResult, StepResult, Symptom } from '../analysis/types.ts';
import { stalledNotBusy } from '../analysis/stalls.ts';
import { downstreamWarningText } from './downstream-warning-text.ts';
import { MAX_NAMES, NAME_FIX } from '../analysis/names-limit.ts';
import { distributionWarningText } from './text-distribution.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import { symptomText } from '../analysis/generator-symptoms.ts';
import { generatorFix } from '../analysis/generator-fix.ts';
import { RECONNECT_SHARE_WARN } from '../analysis/warnings.ts';
import { UNHANDLED_FIX, unhandledText } from '../analysis/scenario-unhandled.ts';
import { k6ChecksText, stepChecksOf } from './k6-checks-text.ts';
import { topologyAcrossText } from './topology-text.ts';

type F = Record<string, number>;

/** "step 3" or "steps 1 and 3". */
function whereSteps(indices: readonly number[]): string {
  return new Set(indices).size === 1 ? `step ${stepList(indices)}` : `steps ${stepList(indices)}`;
}

/**
 * Dropped arrivals: the generator's limit, unless the step failed at the target, whose growing
 * latency held every VU (then more VUs would only queue more requests at it).
 */
function droppedText(w: Symptom, s: StepResult, unit: RateUnit): string {
  const f = w.figures as F;
  const head = `${stepText(s.index, w.attempt)} dropped ${fmtInt(f.dropped)} arrivals: no free VU`;
  const busy = f.droppedBusy;
  const waited = w.figures.waitedOnTarget === true;
  if (busy > 0 && !waited) {
    const forVUs = f.dropped - busy;
    const rest = forVUs > 0 ? `; the other ${fmtInt(forVUs)} found the pool at its maximum: raise maxVUs` : '';
    return `${head}, ${busy === f.dropped ? 'all' : fmtInt(busy)} while the generator's thread was saturated (over 80% busy), when a VU pool over TLS opens no new connection (each costs a handshake, about 2 ms of CPU, which would only stall the thread further): this step measures the generator; give it more cores or workers (--workers) or a machine of its own${rest}`;
  }
  if (!waited && w.figures.generatorSaturated === true)
    return `${head}, while the generator was saturated (its busiest thread or its process over its busy bound), so its own queue held the VUs and more would only add to it: this step measures the generator; give it more cores or workers (--workers) or a machine of its own`;
  if (!waited) return `${head}; raise maxVUs or this step measures the generator`;
  // the mean is of requests: a mix's rate is its requests', whose VUs are the ones in flight
  const [rate, rateUnit] =
    s.requestsPerSec !== undefined ? [s.requestsPerSec, 'requests/s'] : [s.completedPerSec, unit];
  const little =
    s.meanMs !== null
      ? ` (Little's law: ${fmtRate(rate)} ${rateUnit} x ${fmtMs(s.meanMs)} ms mean = ${fmtInt(Math.round((rate * s.meanMs) / 1000))} requests in flight on average)`
      : '';
  const refused =
    busy > 0 ? ` (${fmtInt(busy)} of them refused a new VU while the generator's thread was saturated)` : '';
  // the pool may grow within a second: its busiest moment is what the drops met
  const busyVUs =
    s.vusActiveMax >= s.vusAllocatedMax
      ? `all ${fmtInt(s.vusAllocatedMax)} VUs`
      : `its VUs (up to ${fmtInt(s.vusActiveMax)} busy at once, of ${fmtInt(s.vusAllocatedMax)} allocated by the step's end)`;
  return `${head}, ${busyVUs} waiting on the target${little}: the drops follow from the target's limit${refused}, and more VUs would only queue more requests at it`;
}

/**
 * Reconnects: the target closed or reset kept-alive connections in use, unless the client's own
 * timeouts account for them (plateau closes a timed-out request's connection, so each timeout
 * accounts for at most one reconnect); the rest, where they tell, are still the target's.
 */
function reconnectsText(w: Symptom, at: string): string {
  const f = w.figures as F;
  // `completed` in runs recorded before a mix's requests were counted apart
  const requests = f.requests ?? f.completed;
  const head = `${at}: ${fmtCountShare(f.reconnects / requests)} of its requests (${fmtInt(f.reconnects)} of ${fmtInt(requests)}) had to open their VU's connection again, and connect time (with the TLS handshake, over https) is not in the latency percentiles (nor in k6's http_req_duration)`;
  const target =
    "the target closed kept-alive connections in use (Connection: close, a keep-alive request limit such as Tomcat's default of 100) or reset them; if real clients keep theirs open longer, raise that limit";
  const timeouts = f.timeouts ?? 0;
  if (timeouts === 0) return `${head}: ${target}`;
  const deadline = f.timeoutMs !== undefined ? `http.timeoutMs, ${fmtInt(f.timeoutMs)} ms` : 'http.timeoutMs';
  const byClient = Math.min(timeouts, f.reconnects);
  const rest = f.reconnects - byClient;
  const why = `plateau closes the connection of a request it gives up on, so that VU's next request connects again`;
  // the rest too few to warn of on their own (RECONNECT_SHARE_WARN): the timeouts' alone
  if (rest / requests < RECONNECT_SHARE_WARN)
    return `${head}: they follow the client's own timeouts, not the target's closes: ${fmtInt(timeouts)} of its requests exceeded the client's deadline (${deadline}), and ${why}; the timeouts are the step's failures (see the errors table): the target did not answer in time at this rate, and if real clients wait longer, raise http.timeoutMs`;
  return `${head}: up to ${fmtInt(byClient)} of them after the client's own timeouts (${deadline}: ${why}); for the other ${fmtInt(rest)} or more, ${target}`;
}

function stepWarningText(w: Symptom, s: StepResult, unit: RateUnit): string {
  const f = w.figures as F;
  // "step 6 (attempt 2)": a rerun's warning beside the first attempt's is not a second figure of one step
  const at = stepText(s.index, w.attempt);
  const stalled = w.figures.stalled === true ? stalledNotBusy(s) : null;
  switch (w.code) {
    case 'window-empty':
      return `${at} has no data in its steady window (${fmtInt(f.plannedS)} s planned): it was not judged`;
    case 'window-short':
      return `${at} steady window is ${fmtInt(f.steadyS)} s of ${fmtInt(f.plannedS)} s planned: its figures rest on fewer seconds and it was not judged`;
    case 'dropped':
      return droppedText(w, s, unit);
    case 'late-start':
      return `${at} started arrivals late: scheduler lag p99 ${fmtMsOver(f.lagP99Ms, f.boundMs)} ms > ${f.boundMs} ms; ${stalled ? `${stalled}; a load machine of its own helps most` : 'the generator is short of CPU, so this step may measure the generator'}`;
    case 'loop-delay':
      return `${at} saw event-loop delay up to ${fmtMsOver(f.loopDelayMaxMs, f.boundMs)} ms > ${f.boundMs} ms: the generator stalled and its stalls are inside the latencies; ${stalled ? `its threads were mostly idle (busiest ${fmtShare(s.generatorBusy)}): stalls, not a generator short of CPU; run it on a machine of its own` : 'use more cores or the k6 engine'}`;
    case 'thread-busy':
      return `${at}: the generator's busiest thread was busy ${fmtShareOver(f.busy, f.bound)} of the steady window (> ${fmtShare(f.bound)}): little headroom, so a higher rate may measure the generator; give it more cores or workers (--workers)`;
    case 'process-cpu':
      return `${at}: the generator's process used ${fmtShareOver(f.cpu, f.bound)} of the CPUs it may use in the steady window (> ${fmtShare(f.bound)}): little headroom, so a higher rate may measure the generator; give it more cores, or a machine of its own`;
    case 'throttled':
      return `${at}: the generator's container was throttled by its CPU quota, ${fmtMs(f.throttledMs)} ms in all (summed over its CPUs) in the ${fmtInt(f.steadyS)} s steady window: its threads were stopped until the next quota period (usually 100 ms) each time, so arrivals started late and latencies include the pauses; raise the container's CPU limit (run.json: environment.cpuQuota) or run the generator with whole cores of its own`;
    case 'refused': {
      const share = f.refused / Math.max(1, f.completed);
      return `${at}: ${fmtInt(f.refused)} of its requests (${fmtCountShare(share)}) were refused: nothing listened at the target for part of the step (it stopped, crashed or restarted), so those seconds measured an outage, not the load; see the errors table, and rerun on a target that stays up`;
    }
    case 'over-delivered':
      return `${at} delivered ${fmtRatio(f.delivery)}: ${fmtRate(f.throughputPerSec)} ${unit} succeeded of ${fmtTarget(f.ratePerSec)} offered, so arrivals from before its steady window (a stall as it began) completed inside it, a surge the target did not sustain; where the step is a baseline (the capacity, the next step's capture) it counts at most the ${fmtTarget(f.ratePerSec)} ${unit} offered`;
    case 'reconnects':
      return reconnectsText(w, at);
    default:
      return runWarningText(w, unit);
  }
}

/** A warning about the run, or one whose step is not among the results. */
function runWarningText(w: Symptom, unit: RateUnit, imported = false): string {
  const f = w.figures as F;
  const steps = (w.figures.steps ?? []) as number[];
  switch (w.code) {
    case 'thin-percentile': {
      const counts = f.minN === f.maxN ? fmtInt(f.minN) : `${fmtInt(f.minN)} to ${fmtInt(f.maxN)}`;
      return `${percentileLabel(f.q)} of the held ${whereSteps(steps)} rests on ${counts} samples (needs ${fmtInt(f.neededN)}): shown, marked unreliable; longer holds ${imported ? "(the k6 script's stages)" : '(--hold)'} or higher rates collect enough`;
    }
    case 'cpu-steal': {
      const lo = fmtShare(f.minShare);
      const hi = fmtShare(f.maxShare);
      const windows = f.windows === 1 ? 'the steady window' : 'their steady windows';
      return `${whereSteps(steps)}: the hypervisor gave ${lo === hi ? lo : `${lo} to ${hi}`} of the machine's CPU time elsewhere during ${windows} (CPU steal): the generator's threads (and a target on this machine) stalled while ready to run, whatever their own load; on a burstable instance out of CPU credit or a crowded host the figures move with the neighbours: use a machine with dedicated CPUs`;
    }
    case 'threads-short':
      return `the threads stage ran the steps on ${f.kept} of the ${f.of} threads from the warmup's cost, and step${new Set(steps).size === 1 ? '' : 's'} ${stepList(steps)} found the generator short of CPU all the same: set workers: ${f.of} (--workers ${f.of}) to run on every thread (docs/decisions/022)`;
    case 'cold-target':
      return coldTargetText(w, unit);
    case 'downstream-fan-out':
    case 'downstream-hot-shard':
      return downstreamWarningText(w);
    case 'distribution-skewed':
    case 'distribution-changed':
    case 'distribution-unread':
      return distributionWarningText(w);
    case 'replay-differs':
      return `${stepText(w.step ?? 0, f.attempt)}: replayed from the stored evidence it leads to ${actionWords(w.figures.derived, w.figures.derivedMaxVUs)}, but the live run chose ${actionWords(w.figures.recorded, w.figures.recordedMaxVUs)}: the report read evidence the live run did not have (PromQL windows, probe samples written after the judgement); the classifications shown are the replayed ones`;
    case 'unfinished':
      return 'the run did not finish (the process died): this report is rebuilt from what the store kept';
    case 'closed-model':
      return `a closed-model k6 run (constant-vus, ramping-vus, per-vu-iterations or shared-iterations): all ${f.vus} of its VUs active through ${f.heldS} seconds in a row and no iteration dropped, so its VUs set the load and no rate was offered; each step's target is a rate given at the import, delivery and capture compare its own throughput with it, and its capacity is not established: run a ramping-arrival-rate scenario to measure one`;
    case 'k6-scenarios-summed':
      return `the k6 run ran ${f.count} scenarios (iterations: ${w.figures.scenarios}) and was imported whole: its arrivals are all their iterations together, so its steps and capacity are of their sum, not of one scenario's load; import one with --scenario ${w.figures.first}`;
    case 'k6-checks-failed':
      return k6ChecksText(stepChecksOf(w.figures));
    case 'names-past-limit':
      return `${fmtInt(f.count)} names past the run's ${MAX_NAMES} are folded into one row, "${w.figures.row}" (e.g. "${w.figures.examples}"): built from data no rule tells from fixed names, they came spread over the engine threads, ${w.figures.inWarmup === true ? `and the run stopped in the warmup for them (a thread refuses a send past its own ${MAX_NAMES}, and the threads' names past ${MAX_NAMES} together stop the run)` : w.step !== null ? `and the run stopped at step ${stepNo(w.step)} for them (a thread refuses a send past its own ${MAX_NAMES}, and the threads' names past ${MAX_NAMES} together stop the run)` : `or over the warmup and the steps, where no judged step counted them together (the threads' names past ${MAX_NAMES} together stop the run at the step they pass it in)`}; ${NAME_FIX}`;
    case 'names-failing':
      return `"${w.figures.name}" failed ${fmtShare(f.errorRate)} of its ${w.figures.transaction ? 'arrivals' : 'requests'} in ${whereSteps(steps)}, which held on the run's arrivals as a whole: the capacity is the other entries', with this one failing; read its errors in the table by name and fix them before taking the capacity${typeof w.figures.sample === 'string' ? `; the first: "${quoted(w.figures.sample, 240)}"` : ''}`;
    case 'failures-in-held':
      return failuresInHeldText(w, steps, unit);
    case 'transaction-past-settle':
      return `transaction "${w.figures.name}" took a median of ${steps.length > 1 ? 'up to ' : ''}${fmtSecondsOver(f.p50Ms, f.settleS)} s in ${whereSteps(steps)}, longer than the ${fmtInt(f.settleS)} s each step settled before its window: an arrival counts in the second it ends, so the window counted "${w.figures.name}" arrivals made before it, at the rate below, and its delivery reads short of what the target carried; ${imported ? "hold each rate longer than a transaction lasts (the k6 script's stages)" : `set steps.settleS (or --settle) to at least ${fmtInt(f.settleToSet)}, with the hold as much longer`}`;
    case 'route-unseen':
      return `"${w.figures.name}" has no cross-check in ${whereSteps(steps)}: its route matched no series of the server's while the step's own series read fine: ${typeof w.figures.line === 'string' ? quoted(w.figures.line.replace(/^through PromQL: /, ''), 400) : `set metrics.requests.routes["${w.figures.name}"] to the route as the target labels it`}`;
    case 'labels-unseen':
      return `the label filter read no series in ${whereSteps(steps)}, so none has a server cross-check: ${typeof w.figures.line === 'string' ? quoted(w.figures.line.replace(/^through PromQL: /, ''), 400) : 'set metrics.requests.labels to values the target exposes'}`;
    case 'scenario-unhandled':
      return `${fmtInt(f.count)} error(s) the scenario's code left unhandled came during the load (${String(w.figures.phases)}), after their arrivals had ended (promises it did not await, timers or handlers that threw): they failed no arrival and no figure counts them, so what failed in them is unseen; the first: "${quoted(unhandledText(String(w.figures.first)), 280)}"; ${UNHANDLED_FIX}`;
    case 'topology-across-steps':
      return topologyAcrossText(w);
    case 'torn-lines':
      return `${fmtInt(f.lines)} torn line(s) in buckets.ndjson or probes.ndjson skipped (the process died mid-write)`;
    default:
      return `${w.code}${w.step !== null ? ` (step ${stepNo(w.step)})` : ''}`;
  }
}

/**
 * Failures in held steps (analysis/failures-in-held.ts): a step holds on its successes, so up to a
 * tenth of its arrivals can fail and it holds, and the capacity counts the successes alone.
 */
function failuresInHeldText(w: Symptom, steps: readonly number[], unit: RateUnit): string {
  const f = w.figures as F;
  const names = JSON.parse(String(w.figures.names)) as string[];
  const shares = (w.figures.nameShares ?? []) as number[];
  const what = unitCounts(unit);
  const byName =
    names.length === 0
      ? ''
      : `; by name, ${names.map((n, i) => `"${n}" up to ${fmtShare(shares[i])} of its own`).join(', ')}`;
  return `${what} failed in the held ${whereSteps(steps)} (up to ${fmtShare(f.worstShare)} of a step's, at step ${stepNo(f.worstStep)}${byName}): a step holds on the ${what} that succeeded (delivery), so some may fail and it holds, and the capacity counts successes only; read the errors by name (their kinds and samples), fix them and rerun before taking the capacity as the service's`;
}

/** A next action in words: "go on", "a rerun with maxVUs 400", "stop". */
function actionWords(kind: unknown, maxVUs: unknown): string {
  if (kind === 'rerun') return `a rerun${typeof maxVUs === 'number' ? ` with maxVUs ${fmtInt(maxVUs)}` : ''}`;
  return kind === 'go-on' ? 'going on' : String(kind);
}

/** An earlier reading a later, more loaded step undercut: the target was still warming when it was taken. */
function coldTargetText(w: Symptom, unit: RateUnit): string {
  const f = w.figures as F;
  const what =
    w.figures.measured === 'warmup'
      ? `the warmup at ${fmtRate(f.ratePerSec)} ${unit}`
      : `${stepText(w.step ?? 0, w.attempt)} (${fmtRate(f.ratePerSec)} ${unit})`;
  const later = `${stepText(f.laterStep, f.laterAttempt)} at ${fmtRate(f.laterRatePerSec)} ${unit}`;
  const name = typeof w.figures.name === 'string' ? `${w.figures.name}: ` : '';
  return `${name}${what} read a median of ${fmtMs(f.p50Ms)} ms, and ${later} read ${fmtMs(f.laterP50Ms)} ms (${fmtShare(f.ratio)} of it, under ${fmtShare(f.ratioMax)}): the target got faster under more load, so the earlier reading was taken on a target still warming (caches, JIT, pools or instances joining); raise warmup.minS or warm up longer before the steps`;
}

/** One warning in words, its step looked up among the run's results. */
export function warningText(
  w: Symptom,
  run: Pick<RunResult, 'steps' | 'traffic'> & Partial<Pick<RunResult, 'rules'>>,
): string {
  const s =
    w.step === null ? undefined : run.steps.find((x) => x.index === w.step && (x.attempt ?? 1) === (w.attempt ?? 1));
  const unit = rateUnitOf(run.traffic);
  // an imported k6 run: its holds are the k6 script's
  return s ? stepWarningText(w, s, unit) : runWarningText(w, unit, run.rules?.imported === true);
}

/** Every warning of the run in words, in its order. */
export function warningTexts(
  run: Pick<RunResult, 'steps' | 'warnings' | 'traffic'> & Partial<Pick<RunResult, 'rules'>>,
): string[] {
  return run.warnings.map((w) => warningText(w, run));
}

/**
 * The warnings that qualify the capacity itself, which every headline says under it: an entry of
 * the mix that failed while the run held on its arrivals as a whole (the capacity is the others'),
 * failures in held steps (or an imported run's failed k6 checks) where the step the capacity is
 * read from had them, and a topology the capacity's step read other than a held step below it.
 */
export function caveatWarnings(run: Pick<RunResult, 'steps' | 'warnings' | 'kneeStep'>): Symptom[] {
  const from = kneeResult(run)?.index;
  return run.warnings.filter(
    (w) =>
      w.code === 'names-failing' ||
      (w.code === 'topology-across-steps' && w.figures.kneeStep !== undefined) ||
      ((w.code === 'failures-in-held' || w.code === 'k6-checks-failed') &&
        from !== undefined &&
        (w.figures.steps as number[]).includes(from)),
  );
}

/**
 * What qualifies the capacity, in words, shown under it in every headline: the caveat warnings
 * (caveatWarnings), and a capacity read from a step held generator-limited.
 */
export function capacityCaveats(
  run: Pick<RunResult, 'steps' | 'warnings' | 'traffic' | 'kneeStep'> & Partial<Pick<RunResult, 'rules'>>,
): string[] {
  const knee = kneeResult(run);
  const said = caveatWarnings(run).map((w) => warningText(w, run));
  // a capacity on a step held with the generator over its bounds: the gate will not judge it, and a
  // reader of the headline alone took it for the target's (a review)
  if (knee?.generatorLimited !== undefined)
    said.push(
      `it rests on step ${stepNo(knee.index)}, which held while the generator was over its bounds (${symptomText(knee.generatorLimited, knee)}): the generator may have held its throughput or latencies back, and the gate will not judge it; ${generatorFix(knee, run.rules?.imported)}`,
    );
  return said;
}
