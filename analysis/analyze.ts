/**
 * The whole analysis of a stored run: merge the buckets, replay the attempts through the decision
 * machine (decision.ts), then capacity, knee, peak, the stop reason, the overload shape, the
 * models and the warnings.
 */
import { mergeRecords } from './buckets.ts';
import { capNames } from './name-cap.ts';
import { namesSeen, namesSpreadBy } from './names-spread.ts';
import { nameStopWhy } from './no-limit-stops.ts';
import { replayAttempts, type DecisionPolicy, type Replay } from './decision.ts';
import { attemptsAtTarget, decidingSteps, generatorBoundFailure } from './deciding-steps.ts';
import { summarizeStop } from './stop.ts';
import { warmupFailedAt } from './failures-with-rate.ts';
import { cutOf, lastLoadS } from './cut.ts';
import { DEFAULT_GENERATOR_BOUNDS } from './generator-symptoms.ts';
import { confirmedOverloadShape, sustainedPerSec } from './overload-shape.ts';
import type { AnalyzeInput, NextAction, Rules, RunResult, StepResult, Symptom } from './types.ts';
import { runWarnings, warmupRecordOf } from './warnings.ts';
import { unhandledWarning } from './scenario-unhandled.ts';
import { unloadedOf } from './target-saturated.ts';
import { pastSettle } from './past-settle.ts';
import { topologyAcrossSteps, warmupTopology } from './topology-across.ts';
import { shownStage } from './stage-shown.ts';
import { modelsOf } from './models/index.ts';
import { seriesOf } from './series.ts';
import { decodeDurations } from './durations.ts';
import { steadyWindowS } from './judge.ts';
import { serverRttMs } from './cross-check.ts';
import { STEPS_PHASE, WARMUP_PHASE } from './phases.ts';
import { requestSeriesOf, requestSeriesText } from './request-series.ts';
import { sloOf } from './slo.ts';
import { unitOf } from './format.ts';
import { withDownstreams } from './downstreams.ts';
import { withDistribution } from './distribution.ts';

/** The step of highest throughput before `bad` (null without one). */
function bestBefore(steps: readonly StepResult[], bad: StepResult | null): StepResult | null {
  const before = bad ? steps.slice(0, steps.indexOf(bad)) : [];
  return before.reduce<StepResult | null>(
    // by what each sustained (decision 043): a surge drained in a window is no level to fall from
    (best, s) => (s.steadyS > 0 && (!best || sustainedPerSec(s) > sustainedPerSec(best)) ? s : best),
    null,
  );
}

/** The input with its text flags (rate unit, ok a lower bound, imported) and the mix's shares in the rules it is judged by (the decision policy's too): the texts follow them. */
function withTextFlags(input: AnalyzeInput): AnalyzeInput {
  const unit = input.rateUnit;
  if (unit === undefined && !input.okLowerBound && !input.imported && !input.closedModel && !input.mix) return input;
  const texts = {
    ...(input.mix ? { mix: input.mix } : {}),
    ...(unit !== undefined ? { rateUnit: unit } : {}),
    ...(input.okLowerBound ? { okLowerBound: true as const } : {}),
    ...(input.imported ? { imported: true as const } : {}),
    ...(input.closedModel ? { closedModel: true as const } : {}),
  };
  return {
    ...input,
    rules: { ...input.rules, ...texts },
    ...(input.policy ? { policy: { ...input.policy, rules: { ...input.policy.rules, ...texts } } } : {}),
  };
}

/** The whole analysis: merge buckets, judge the steps, find capacity, knee, peak and why the run stopped. */
export function analyzeRun(given: AnalyzeInput): RunResult {
  const input = withTextFlags(given);
  const merged = mergeRecords(beforeInterrupt(input));
  // counted before the fold: the threads' names together past the limit stop the run (names-spread.ts)
  const seen = namesSeen(merged);
  const { records, folded } = capNames(merged, input.entryNames);
  const routes = input.serverConfig?.requests?.routes;
  const server =
    input.samples || input.promqlWindows
      ? {
          samples: input.samples ?? [],
          promql: input.promqlWindows,
          rttMs: serverRttMs(input.rtt),
          ...(routes && Object.keys(routes).length > 0 ? { routes } : {}),
          ...(input.clientTimeoutMs !== undefined ? { clientTimeoutMs: input.clientTimeoutMs } : {}),
        }
      : undefined;
  const policy = input.policy ?? defaultPolicy(input.rules, input.vus.maxVUs);
  const attempts = input.attempts ?? input.steps.map((st) => ({ ...st, attempt: 1, maxVUs: input.vus.maxVUs }));
  // every second's durations decoded once: each attempt's window sums, and the time series' p99s
  const durations = decodeDurations(records, attempts.map(steadyWindowS));
  const replay = replayAttempts(
    attempts,
    {
      records,
      server,
      probes: input.samples ?? [],
      rttMs: server?.rttMs ?? 0,
      durations,
      namesSeen: seen,
      unloaded: unloadedOf(warmupRecordOf(input.stages), serverRttMs(input.rtt), unitOf(input.rules)),
    },
    policy,
  );
  const steps = trimNotRun(replay.steps);
  const cut = input.interrupted ? cutOf(attempts, lastLoadS(input.records), replay.steps) : null;
  const warmupAt = warmupFailedAt(records, input.stages);
  const stop = summarizeStop(
    steps,
    input.plannedSteps ?? input.steps.length,
    input.interrupted,
    input.rules,
    input.stages,
    input.closedModel === true,
    cut,
    warmupAt,
  );
  // stopped by limits.maxDurationS, not a signal: said, with the fix (it read as a Ctrl-C); the
  // gate's reason gives this detail and adds no fix of its own (gate/judgeable.ts)
  if (stop.stopReason === 'interrupted' && input.durationCapS !== undefined)
    stop.stopDetail = `limits.maxDurationS (${input.durationCapS} s of load) was reached: ${stop.stopDetail}; raise limits.maxDurationS to let the run reach its limit`;
  const counted = decidingSteps(steps);
  const firstBad = counted.find((s) => s.verdict === 'fails') ?? null;
  const knee = counted.find((s) => s.index === stop.kneeStep) ?? null;
  const run = withDownstreams(input, {
    schemaVersion: 2,
    runId: input.runId,
    target: input.target,
    engine: input.engine,
    startedAt: input.startedAt,
    rules: input.rules,
    // shown: a warmup that never settled reads warn (stage-shown.ts); every analysis above reads them as recorded
    stages: input.stages.map(shownStage),
    vus: input.vus,
    rtt: input.rtt,
    environment: input.environment,
    steps,
    ...stop,
    interrupted: input.interrupted,
    ...(cut !== null ? { cut } : {}),
    ...(input.durationCapS !== undefined ? { durationCapS: input.durationCapS } : {}),
    warnings: [
      ...runWarnings(steps, input.rules, input.stages, input.clientTimeoutMs),
      ...unhandledWarning(merged),
      ...pastSettle(steps, attempts),
      ...topologyAcrossSteps(steps, warmupTopology(input.samples ?? [], WARMUP_PHASE), stop.kneeStep),
      ...replay.differs.map(differsWarning),
      ...(folded
        ? [
            {
              code: 'names-past-limit',
              // the step they stopped the run at (names-spread.ts), null where none did
              step: stop.stopReason === 'error' ? (steps.find((s) => nameStopWhy(s) !== null)?.index ?? null) : null,
              figures: {
                count: folded.count,
                row: folded.row,
                examples: folded.examples.join('", "'),
                // the warmup stopped for them (warmup.ts counts its threads' names as the steps do)
                ...(stop.stopReason === 'warmup-failed' &&
                namesSpreadBy(namesSeen(merged, WARMUP_PHASE), { holdEndS: Infinity }) !== null
                  ? { inWarmup: true }
                  : {}),
              },
            },
          ]
        : []),
    ],
    ...(replay.differs.length > 0 ? { replayDiffers: replay.differs } : {}),
    series: seriesOf(records, durations.p99Ms),
    ...(input.gauges && input.gauges.length > 0 ? { gauges: input.gauges } : {}),
    ...(input.generatorBusyMax !== undefined ? { generatorBusyMax: input.generatorBusyMax } : {}),
    ...(server && input.serverConfig?.requests
      ? { requestSeries: requestSeriesText(requestSeriesOf(input.serverConfig.requests)) }
      : {}),
    // the models describe the target: a transient, contaminated or generator-bound attempt measured something else
    models: modelsOf(
      counted.filter((s) => !s.generatorBound),
      stop.heldAtLeastPerSec,
      stop.kneeStep,
      stop.peakPerSec,
      input.entryNames,
      stop.capacityPerSec !== null,
      input.rateUnit === 'arrivals/s',
    ),
    // a closed-model run was offered no rate: no shape of overload against one
    overload: input.closedModel
      ? undefined
      : confirmedOverloadShape(
          knee,
          attemptsAtTarget(counted, firstBad),
          bestBefore(counted, firstBad),
          unitOf(input.rules),
          input.rules.okLowerBound === true,
          input.rules,
          warmupAt,
        ),
    generatorBound: generatorBoundFailure(steps) !== null,
    contaminated: steps.some((s) => s.contaminated),
    ...(input.slo ? { slo: sloOf(input.slo, steps, input.rtt, input.rules) } : {}),
  });
  return withDistribution(input, run);
}

/** An attempt whose replayed action is not the one the live run took. */
function differsWarning(d: Replay['differs'][number]): Symptom {
  const maxVUs = (a: NextAction) => (a.kind === 'rerun' ? a.maxVUs : null);
  return {
    code: 'replay-differs',
    step: d.index,
    ...(d.attempt > 1 ? { attempt: d.attempt } : {}),
    figures: {
      attempt: d.attempt,
      recorded: d.recorded.kind,
      recordedMaxVUs: maxVUs(d.recorded),
      derived: d.derived.kind,
      derivedMaxVUs: maxVUs(d.derived),
    },
  };
}

/** Trailing attempts with no data are left out (they never ran), except the first step, which is always reported. */
function trimNotRun(steps: StepResult[]): StepResult[] {
  let last = steps.length - 1;
  while (last > 0 && steps[last].verdict === 'not-run') last--;
  return steps.slice(0, last + 1);
}

/** The policy of a run that stored none (older runs, tests): the default bounds, confirmation on, no topology reruns. */
export function defaultPolicy(rules: Rules, maxVUs: number): DecisionPolicy {
  return {
    rules,
    bounds: DEFAULT_GENERATOR_BOUNDS,
    confirmFailedStep: true,
    rerunContaminated: false,
    maxVUsBound: Math.max(maxVUs, 5000),
  };
}

/** Offered arrivals at or above this share of its rate make a hold's second whole, not the part of one a stop cut. */
const WHOLE_SECOND_SHARE = 0.9;

/**
 * The records the steps are judged on. An interrupted (or crashed) run's last second of load holds
 * only the arrivals due before the stop: counted whole it read as a collapse of its step (21 of 50
 * arrivals/s). That second is the last steps second that offered arrivals (started or dropped,
 * summed over the sources: a worker's stripe of a low rate may have had none due in it). Unless it
 * offered a whole second of its hold's rate (the stop came after the schedule ended: a graceful
 * drain, the gap before a rerun), it and the seconds after it (completions of the drain alone) are
 * left out of the judging, and kept in the store. Read from the data, not from a clock: a k6
 * engine's seconds count from k6's own start, not the pipeline's.
 */
function beforeInterrupt(input: AnalyzeInput): AnalyzeInput['records'] {
  if (!input.interrupted) return input.records;
  const lastS = lastLoadS(input.records);
  if (lastS === null) return input.records;
  let offered = 0;
  for (const r of input.records) if (r.phase === STEPS_PHASE && r.tS === lastS) offered += r.started + r.dropped;
  const hold = (input.attempts ?? input.steps).find((a) => lastS >= a.holdStartS && lastS + 1 <= a.holdEndS);
  if (hold && offered >= WHOLE_SECOND_SHARE * hold.ratePerSec) return input.records;
  return input.records.filter((r) => r.phase !== STEPS_PHASE || r.tS < lastS);
}
