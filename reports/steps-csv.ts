/**
 * steps.csv: one row per attempt for spreadsheets (step numbered from 1, as in every human-facing output;
 * a rerun at the same rate has the same step and attempt 2, and its flags say how it was classified).
 * Numbers stay numbers (rounded to a stable precision); every string goes through csvSafe so no
 * cell can start a formula. New columns are appended, so existing ones keep their positions.
 */
import { stringify } from 'csv-stringify/sync';
import { stepNo } from '../analysis/format.ts';
import { generatorLimitedText } from '../analysis/generator-symptoms.ts';
import type { Percentile, RunResult, SloStep, StepResult } from '../analysis/types.ts';
import { percentileOf } from './cells.ts';
import { loopDelayMeasured } from './generator-cells.ts';
import { csvSafe } from './escape.ts';

export const STEPS_CSV_COLUMNS = [
  'step',
  'rate_per_sec',
  'throughput_per_sec',
  'delivery',
  'capture',
  'p50_ms',
  'p50_n',
  'p90_ms',
  'p99_ms',
  'p99_9_ms',
  'p99_9_n',
  'p99_9_reliable',
  'error_rate',
  'dropped',
  'verdict',
  'reasons',
  'lag_p99_ms',
  'loop_delay_max_ms',
  'generator_busy',
  'reconnects',
  'dropped_thread_busy',
  'throttled_ms',
  'cpu_steal',
  'generator_cpu',
  // appended later: existing columns keep their positions
  'attempt',
  'transient',
  'generator_bound',
  'generator_limited',
  'waited_on_target',
  'inconclusive',
  'contaminated',
  'p50_reliable',
  'p90_n',
  'p90_reliable',
  'p99_n',
  'p99_reliable',
  // the latency objective (config slo), empty without one: the step's quantile as judged, met or
  // not (empty when not judged, and slo_unjudged says why)
  'slo_value_ms',
  'slo_met',
  'slo_unjudged',
  // every request of every arrival per second (a transaction's are several); completed_per_sec's
  // arrivals where each is one request
  'requests_per_sec',
] as const;

/** x rounded to `digits` decimals; empty cell for null. */
function num(x: number | null | undefined, digits: number): number | string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '';
  const scale = 10 ** digits;
  return Math.round(x * scale) / scale;
}

/** "true"/"false" for a flag (absent is false). */
function flag(x: boolean | undefined): string {
  return String(x === true);
}

/** "true"/"false", empty when the percentile was not computed. */
function reliable(p: Percentile | undefined): string {
  return p ? String(p.reliable) : '';
}

/** The objective's reading of step s (the same attempt), when the run has an objective. */
function sloOf(run: RunResult, s: StepResult): SloStep | undefined {
  return run.slo?.steps.find((x) => x.step === s.index && (x.attempt ?? 1) === (s.attempt ?? 1));
}

function stepRow(s: StepResult, slo: SloStep | undefined): (number | string)[] {
  const p50 = percentileOf(s, 50),
    p90 = percentileOf(s, 90),
    p99 = percentileOf(s, 99),
    p999 = percentileOf(s, 99.9);
  return [
    stepNo(s.index),
    num(s.ratePerSec, 3),
    num(s.throughputPerSec, 3),
    num(s.delivery, 4),
    num(s.capture, 4),
    num(p50?.valueMs, 3),
    p50?.n ?? '',
    num(p90?.valueMs, 3),
    num(p99?.valueMs, 3),
    num(p999?.valueMs, 3),
    p999?.n ?? '',
    reliable(p999),
    num(s.errorRate, 6),
    s.dropped,
    csvSafe(s.verdict),
    csvSafe(s.reasons.join('; ')),
    num(s.lagP99Ms, 3),
    // empty where none was measured (k6), as report.md's "–"
    loopDelayMeasured(s) ? num(s.loopDelayMaxMs, 2) : '',
    num(s.generatorBusy, 3),
    s.reconnects ?? '',
    s.droppedBusy ?? 0,
    num(s.throttledMs, 1),
    num(s.cpuSteal, 3),
    num(s.generatorCpu, 3),
    s.attempt ?? 1,
    flag(s.transient),
    flag(s.generatorBound),
    csvSafe(s.generatorLimited ? generatorLimitedText(s.generatorLimited, s) : ''),
    flag(s.waitedOnTarget),
    flag(s.inconclusive),
    flag(s.contaminated),
    reliable(p50),
    p90?.n ?? '',
    reliable(p90),
    p99?.n ?? '',
    reliable(p99),
    num(slo?.valueMs, 3),
    slo?.met == null ? '' : String(slo.met),
    csvSafe(slo?.unjudged ?? ''),
    num(s.requestsPerSec ?? s.completedPerSec, 3),
  ];
}

export function renderStepsCsv(run: RunResult): string {
  return stringify(
    run.steps.map((s) => stepRow(s, sloOf(run, s))),
    { header: true, columns: [...STEPS_CSV_COLUMNS] },
  );
}
