/**
 * Cell texts shared by the renderers, so a figure reads the same in every format.
 */
import {
  fmtInt,
  fmtMs,
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtTarget,
  rateUnitOf,
  sharedRateUnit,
  stepNo,
} from '../analysis/format.ts';
import { onThisMachine, recordedAddresses } from '../analysis/machine.ts';
import type {
  Percentile,
  RateUnit,
  Rules,
  RunResult,
  StageOutcome,
  StageShown,
  StepResult,
} from '../analysis/types.ts';
import { shownStage } from '../analysis/stage-shown.ts';

/** A figure as every table shows one resting on too few samples: "12.3 ms" as it is, "~12.3 ms*" when not reliable. */
export function markedFigure(text: string, reliable: boolean): string {
  return reliable ? text : `~${text}*`;
}

/** "12.3 ms (n=4,512)"; an unreliable one "~12.3 ms* (n=312)"; "–" when empty. */
export function percentileCell(p: Percentile | undefined): string {
  if (!p || p.valueMs === null) return '–';
  return `${markedFigure(`${fmtMs(p.valueMs)} ms`, p.reliable)} (n=${fmtInt(p.n)})`;
}

/** The step's percentile q, if computed. */
export function percentileOf(s: StepResult, q: number): Percentile | undefined {
  return s.latency.find((p) => p.q === q);
}

/** True when any shown percentile of any step is unreliable (the report then adds a footnote). */
export function anyUnreliable(run: RunResult): boolean {
  return run.steps.some((s) => s.latency.some((p) => p.valueMs !== null && !p.reliable));
}

/**
 * How an attempt was classified, in words: "attempt 2", "transient", "generator-bound",
 * "generator-limited", "inconclusive", "contaminated"; empty for a plain first attempt.
 */
export function attemptFlags(s: StepResult): string[] {
  return [
    s.attempt && s.attempt > 1 ? `attempt ${s.attempt}` : '',
    s.transient ? 'transient' : '',
    s.generatorBound ? 'generator-bound' : '',
    s.generatorLimited ? 'generator-limited' : '',
    s.inconclusive ? 'inconclusive' : '',
    s.contaminated ? 'contaminated' : '',
  ].filter(Boolean);
}

/**
 * The verdict as every table shows it: "holds", or with the attempt's classification when it has
 * one ("fails (transient)", "holds (attempt 2)", "holds (generator-limited)"), so a failure that
 * did not count never reads as a confirmed one.
 */
export function verdictLabel(s: StepResult): string {
  const flags = attemptFlags(s);
  return flags.length === 0 ? s.verdict : `${s.verdict} (${flags.join(', ')})`;
}

/** The verdict and its classification for running text: "fails, transient". */
export function verdictBrief(s: StepResult): string {
  return [s.verdict, ...attemptFlags(s)].join(', ');
}

/** Delivery to 2 decimals; below its bound with the decimals that keep it from reading as the bound (0.8987 is "0.899", not "0.90"). */
export function deliveryText(s: StepResult, rules: Rules): string {
  if (s.steadyS <= 0) return '–';
  return s.delivery < rules.deliveryMin ? fmtRatioBelow(s.delivery, rules.deliveryMin) : fmtRatio(s.delivery);
}

/** Capture likewise ("0.599", not "0.60", against 0.60); "–" for the first step. */
export function captureText(s: StepResult, rules: Rules): string {
  return s.capture !== null && s.capture < rules.captureMin
    ? fmtRatioBelow(s.capture, rules.captureMin)
    : fmtRatio(s.capture);
}

export type { RateUnit };

/** The unit of the run's rates (analysis/format.ts rateUnitOf): arrivals/s for traffic with a transaction, else req/s. */
export function rateUnit(run: Pick<RunResult, 'traffic'>): RateUnit {
  return rateUnitOf(run.traffic);
}

/** The unit of rates two runs share (analysis/format.ts sharedRateUnit). */
export function pairUnit(a: Pick<RunResult, 'traffic'>, b: Pick<RunResult, 'traffic'>): RateUnit {
  return sharedRateUnit(a.traffic, b.traffic);
}

/** The step table of report.md and report.html: same header, same cells; each renderer escapes them. */
export function stepHeader(run: Pick<RunResult, 'traffic'>): string[] {
  const unit = rateUnit(run);
  return [
    'Step',
    `Target ${unit}`,
    `Achieved ${unit}`,
    'Delivery',
    'Capture',
    'p50',
    'p90',
    'p99',
    'p99.9',
    'Error rate',
    'Dropped',
    'Verdict',
  ];
}

/**
 * A step's number as a table row names it, "17", or "17 (2)" for its second attempt, so a rerun's
 * row is told from the first attempt's in tables that have no verdict column.
 */
export function stepCell(s: Pick<StepResult, 'index' | 'attempt'>): string {
  return `${stepNo(s.index)}${s.attempt !== undefined && s.attempt > 1 ? ` (${s.attempt})` : ''}`;
}

export function stepCells(s: StepResult, rules: Rules): string[] {
  const hasData = s.steadyS > 0;
  return [
    String(stepNo(s.index)),
    fmtTarget(s.ratePerSec),
    hasData ? fmtRate(s.throughputPerSec) : '–',
    deliveryText(s, rules),
    captureText(s, rules),
    ...[50, 90, 99, 99.9].map((q) => percentileCell(percentileOf(s, q))),
    hasData ? fmtPercent(s.errorRate) : '–',
    fmtInt(s.dropped),
    verdictLabel(s),
  ];
}

/** True when a and b are the same attempt of the same step (a rerun shares its index, not its attempt). */
export function sameAttempt(a: { index: number; attempt?: number }, b: { index: number; attempt?: number }): boolean {
  return a.index === b.index && (a.attempt ?? 1) === (b.attempt ?? 1);
}

/** "http_5xx 4,500, timeout 3" (empty string when none). */
export function countsText(counts: Partial<Record<string, number>> | undefined): string {
  return Object.entries(counts ?? {})
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k} ${fmtInt(n ?? 0)}`)
    .join(', ');
}

/**
 * The rows of the errors table: the steps with failed arrivals, and those where no arrival failed
 * but requests of some names did: a send made after its transaction ended fails its request alone,
 * its arrival already counted (a reviewer's report said "No failed requests in any steady window"
 * beside a name failing 100%, and its message was nowhere). Such a step's kinds name the requests.
 */
export function errorRows(run: RunResult): string[][] {
  return run.steps.flatMap((s) => {
    const named = Object.entries(s.byName ?? {}).filter(([, n]) => n.failed > 0);
    if (s.failed === 0 && named.length === 0) return [];
    const kinds =
      s.failed > 0
        ? countsText(s.errors)
        : `no arrival failed; requests: ${named.map(([name, n]) => `"${name}" ${countsText(n.errors)}`).join(', ')}`;
    // one message a line (the renderer makes the line break)
    return [
      [stepCell(s), failedCell(s), fmtPercent(s.errorRate), kinds, countsText(s.statuses), samplesText(s.errorSamples)],
    ];
  });
}

/**
 * A step's failed arrivals. An imported iteration counts where it ended (decision 063): those beyond
 * the window's failed requests failed by requests sent before it, which the count says, so that it
 * reconciles with the requests' statuses beside it.
 */
function failedCell(s: StepResult): string {
  const before = s.failed - (s.requestsFailed ?? s.failed);
  return before > 0
    ? `${fmtInt(s.failed)} (at least ${fmtInt(before)} failed by a request sent before the window)`
    : fmtInt(s.failed);
}

/**
 * A step's error samples one a line (the renderer makes the line break: pre-line in HTML, <br> in
 * a Markdown cell), a message's own CR or LF shown as ↵ so that neither it nor a " / " in a path
 * splits one message into two.
 */
export function samplesText(samples: readonly string[] | undefined): string {
  return (samples ?? []).map((m) => m.replace(/\r\n|\r|\n/g, ' ↵ ')).join('\n');
}

/** A stage's duration: "120 ms" under a second, "60.0 s" above. */
export function durationText(ms: number): string {
  return ms < 1000 ? `${fmtMs(ms)} ms` : `${fmtMs(ms / 1000)} s`;
}

/** The RTT measured before the load, in one line (both renderers). */
export function rttText(run: RunResult): string {
  const { rtt } = run;
  return rtt === null
    ? 'RTT: not measured'
    : `RTT: TCP connect median ${fmtMs(rtt.connectMedianMs)} ms; HTTP median ${fmtMs(rtt.httpMedianMs)} ms, p90 ${fmtMs(rtt.httpP90Ms)} ms${rtt.httpMinMs !== undefined ? `, min ${fmtMs(rtt.httpMinMs)} ms (the one the server cross-check subtracts)` : ''} (${fmtInt(rtt.samples)} samples)`;
}

/**
 * A line saying the target shares the generator's machine, or null: loopback, or one of the
 * machine's own addresses as the run recorded them (a run older than that record: loopback only).
 * An import's environment is the importing machine's, not k6's: its addresses and CPUs say nothing
 * of where k6 ran, so only a loopback URL is read, as k6 and the target sharing a machine.
 */
export function colocationText(run: RunResult): string | null {
  if (run.rules.imported) {
    if (!onThisMachine(run.target)) return null;
    return `Target on a loopback address (${new URL(run.target).hostname}): k6 and the target ran on one machine and shared its cores, so what is measured is the target's capacity with what k6 left it. For numbers to defend, run k6 from another machine.`;
  }
  if (!onThisMachine(run.target, recordedAddresses(run.environment))) return null;
  const cores = run.environment.cpus ? ` (${run.environment.cpus})` : '';
  return `Target on the generator's own machine${cores}: the two share its cores, so what is measured is the target's capacity with what the generator leaves it (the busy share below says how hard the generator worked). For numbers to defend, generate load from another machine.`;
}

/**
 * A stage's detail as the Stages tables show it: a failed stage's with the fix it was refused with
 * (the terminal prints it, and a report read in CI must carry it too).
 */
export function stageDetailText(s: Pick<StageShown, 'status' | 'detail' | 'evidence'>): string {
  if (s.status !== 'fail') return s.detail;
  const fixes = (s.evidence ?? []).filter((e) => e.startsWith('fix: '));
  return fixes.length > 0 ? `${s.detail}; ${fixes.join('; ')}` : s.detail;
}

/**
 * The terminal's line as a stage is recorded (plateau run), with the status the Stages tables show
 * (a warmup that never settled reads warn). A failed stage ends the run, and its error is the run's,
 * printed in full with its fix after the table: said once there, pointed to here.
 */
export function stageLineText(s: StageOutcome): string {
  const shown = shownStage(s);
  return shown.status === 'fail'
    ? `${shown.name}: fail (${shown.durationMs} ms): see the error below`
    : `${shown.name}: ${shown.status} (${shown.durationMs} ms) ${shown.detail}`;
}
