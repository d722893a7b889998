/**
 * The text alternative of each chart (its figure's aria-label, and its caption): what that chart of
 * that run shows, with its key figures, read from what the chart draws. One sentence a chart kind
 * promised what a run's chart did not have (the server's rate and gauges in a run without them) and
 * named marks it did not draw ("the knee and the capacity" beside "last held" and "held at least").
 */
import { hasNames } from '../../analysis/compare/by-name.ts';
import { kneeResult } from '../../analysis/deciding-steps.ts';
import { fmtInt, fmtMs, fmtRate, fmtTarget, stepNo } from '../../analysis/format.ts';
import { STEPS_PHASE } from '../../analysis/phases.ts';
import { SERVER_RATE_GAUGE } from '../../analysis/series.ts';
import type { RunResult, StepResult } from '../../analysis/types.ts';
import { captureText, deliveryText, markedFigure, rateUnit } from '../cells.ts';
import { sig3, uslFitted } from '../models-text.ts';
import { isTransaction, NAME_QUANTILES, namedSteps, nameOrder } from '../names-text.ts';
import { generatorDelayBands, latencyRows, RELIABLE, stepAxis, type LatencyRow } from './latency.ts';
import { countedAttempts, GENERATOR_LIMITED, pointCategory } from './theme.ts';
import { throughputMarks } from './throughput.ts';
import { stepsText, uslScopeText, uslShowsNStar } from './usl.ts';

/** "step 4", "step 4's attempt 2" (as the headline names one: cells.ts), no parenthesis to nest in another. */
function attemptName(s: Pick<StepResult, 'index' | 'attempt'>): string {
  return `step ${stepNo(s.index)}${(s.attempt ?? 1) > 1 ? `'s attempt ${s.attempt}` : ''}`;
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${fmtInt(n)} ${n === 1 ? one : many}`;

/** The steps a latency chart shades for the generator's own delays, as its axis labels them; '' for none. */
function shadedText(run: RunResult, shown: ReadonlySet<string>): string {
  const bands = generatorDelayBands(run, stepAxis(run), shown) as { data: { values: { step: string }[] } }[];
  const steps = bands.flatMap((b) => b.data.values.map((v) => v.step));
  return steps.length === 0
    ? ''
    : `; shaded pale orange, the generator's own delays in their latencies: ${listed(steps.map((s) => `step ${s}`))}`;
}

export function throughputAlt(run: RunResult): string {
  const steps = run.steps.filter((s) => s.steadyS > 0);
  const unit = rateUnit(run);
  const counted = countedAttempts(run.steps);
  const rates = steps.map((s) => s.ratePerSec);
  const marks = throughputMarks(run);
  const best = steps.filter((s) => counted.has(s)).sort((a, b) => b.throughputPerSec - a.throughputPerSec)[0];
  const aside = steps.filter((s) => !counted.has(s));
  const limited = steps.filter((s) => counted.has(s) && pointCategory(s) === GENERATOR_LIMITED);
  return [
    `Offered vs achieved throughput of ${plural(steps.length, 'attempt')}, offered ${fmtTarget(Math.min(...rates))} to ${fmtTarget(Math.max(...rates))} ${unit}, beside the ideal line (achieved = offered)`,
    ...(marks.knee ? [`${marks.knee.label.replace(': ', ' at ')}, ${fmtTarget(marks.knee.step.ratePerSec)}/s`] : []),
    ...(marks.level ? [marks.level.label] : []),
    ...(best ? [`highest achieved ${fmtRate(best.throughputPerSec)} ${unit}, at ${attemptName(best)}`] : []),
    ...(marks.peak ? [marks.peak.label] : []),
    ...(limited.length > 0
      ? [`held with the generator over its bounds, a diamond: ${listed(limited.map(attemptName))}`]
      : []),
    ...(aside.length > 0
      ? [
          `set aside, hollow and off the line: ${listed(aside.map((s) => `${attemptName(s)} (${fmtTarget(s.ratePerSec)}/s, ${pointCategory(s)})`))}`,
        ]
      : []),
  ].join('; ');
}

/** The percentile an alt text follows: p99 where drawn, else the highest drawn. */
function keyPercentile(rows: readonly LatencyRow[]): string | null {
  const labels = [...new Set(rows.map((r) => r.percentile))];
  return labels.includes('p99') ? 'p99' : (labels.at(-1) ?? null);
}

export function latencyAlt(run: RunResult): string {
  const rows = run.steps.flatMap((s) => latencyRows(s, s.latency).map((r) => ({ ...r, s })));
  const labels = [...new Set(rows.map((r) => r.percentile))];
  const q = keyPercentile(rows);
  const of = rows.filter((r) => r.percentile === q);
  const unreliable = rows.filter((r) => r.reliability !== 'reliable').length;
  const kneeStep = kneeResult(run);
  const knee = of.find((r) => r.s === kneeStep);
  const top = [...of].sort((a, b) => b.ms - a.ms)[0];
  // marked as every table marks a figure on too few samples: unmarked, a thin p99 read as measured
  const at = (r: (typeof of)[number]) =>
    `${markedFigure(`${fmtMs(r.ms)} ms`, r.reliability === RELIABLE)} at ${attemptName(r.s)}`;
  const marked = [of[0], knee, top].some((r) => r !== undefined && r.reliability !== RELIABLE);
  const kneeWord = run.capacityPerSec === null ? 'the last step held' : 'the knee';
  const figures =
    of.length === 0
      ? ''
      : `: ${q} ${at(of[0])}${knee && knee !== of[0] ? `, ${at(knee)} (${kneeWord})` : ''}${top !== of[0] && top !== knee ? `, highest ${at(top)}` : ''}`;
  return `Latency percentiles (${listed(labels)}) of successful requests per step, on a log scale${figures}; ${
    unreliable === 0
      ? 'every value rests on enough samples'
      : `${plural(unreliable, 'value')} of ${fmtInt(rows.length)} ${unreliable === 1 ? 'rests' : 'rest'} on too few samples, drawn as hollow triangles${figures !== '' && marked ? ' (marked ~value*, as in the tables)' : ''}`
  }${shadedText(run, new Set(rows.map((r) => r.step)))}`;
}

export function deliveryAlt(run: RunResult): string {
  const steps = run.steps.filter((s) => s.steadyS > 0);
  const { deliveryMin, captureMin } = run.rules;
  const judged = steps.filter((s) => s.verdict !== 'incomplete');
  const captured = judged.filter((s) => s.capture !== null);
  const lowDelivery = judged.filter((s) => s.delivery < deliveryMin);
  const lowCapture = captured.filter((s) => s.capture! < captureMin);
  const incomplete = steps.filter((s) => s.verdict === 'incomplete');
  // "every capture at or above" of a run with none (a first step alone has no rate added) said a
  // bar met the threshold where the chart drew none
  const below = (name: string, bound: number, of: StepResult[], list: StepResult[], text: (s: StepResult) => string) =>
    of.length === 0
      ? `no ${name} judged`
      : list.length === 0
        ? `every ${name} at or above ${bound.toFixed(2)}`
        : `${name} below ${bound.toFixed(2)} at ${listed(list.map((s) => `${attemptName(s)} (${text(s)})`))}`;
  return [
    `Delivery (achieved ÷ offered) and capture (throughput gained ÷ rate added) of ${plural(steps.length, 'attempt')} against their thresholds, ${deliveryMin.toFixed(2)} and ${captureMin.toFixed(2)}`,
    below('delivery', deliveryMin, judged, lowDelivery, (s) => deliveryText(s, run.rules)),
    below('capture', captureMin, captured, lowCapture, (s) => captureText(s, run.rules)),
    ...(incomplete.length > 0 ? [`not judged, grey (cut short): ${listed(incomplete.map(attemptName))}`] : []),
  ].join('; ');
}

export function timeseriesAlt(run: RunResult): string {
  const points = (run.series ?? []).filter((p) => p.phase === STEPS_PHASE);
  const unit = hasNames(run) ? 'arrivals' : 'requests';
  const max = (values: readonly number[]) => values.reduce((m, v) => Math.max(m, v), 0);
  const failed = max(points.map((p) => p.failed));
  const dropped = max(points.map((p) => p.dropped));
  const busy = points.filter((p) => p.vusAllocated > 0 && p.vusActive >= p.vusAllocated).length;
  const p99s = points.flatMap((p) => (p.p99Ms !== null && p.p99Ms > 0 ? [p.p99Ms] : []));
  const gauges = (run.gauges ?? []).filter((g) => g.points.length > 0);
  const rate = gauges.find((g) => g.name === SERVER_RATE_GAUGE);
  const others = gauges.filter((g) => g.name !== SERVER_RATE_GAUGE);
  // a gauge counts (connections, replicas): an integer is written as one
  // the windows the chart shades: none past the data's end (an interrupted run's)
  const end = points.reduce((m, p) => Math.max(m, p.tS + 1), 0);
  const windows = run.steps.filter((s) => s.steadyStartS < end).length;
  const upTo = (g: (typeof gauges)[number]) => `${g.name} up to ${fmtTarget(max(g.points.map((p) => p.value)))}`;
  const range = (lo: string, hi: string) => (lo === hi ? `${lo} ms throughout` : `${lo} to ${hi} ms`);
  return [
    `The steps phase second by second, ${plural(points.length, 'second')}, the ${plural(windows, 'steady window')} shaded and numbered by step`,
    `${unit} per second: successful up to ${fmtInt(max(points.map((p) => p.ok)))}, ${failed === 0 ? 'none failed' : `failed up to ${fmtInt(failed)}`}${points.some((p) => p.offered !== undefined) ? ', beside the offered rate (dashed)' : ''}`,
    dropped === 0 ? 'no dropped iteration' : `dropped iterations up to ${fmtInt(dropped)} a second`,
    `VUs: up to ${fmtInt(max(points.map((p) => p.vusActive)))} active of ${fmtInt(max(points.map((p) => p.vusAllocated)))} allocated (dashed)${busy > 0 ? `, every one busy in ${plural(busy, 'second')}` : ''}`,
    ...(p99s.length > 0
      ? [`p99 per second ${range(fmtMs(Math.min(...p99s)), fmtMs(Math.max(...p99s)))} (log scale)`]
      : []),
    ...(rate ? [`the server's own requests per second up to ${fmtRate(max(rate.points.map((p) => p.value)))}`] : []),
    ...(others.length > 0 ? [`server-side gauges (symmetric log scale): ${listed(others.map(upTo))}`] : []),
  ].join('; ');
}

export function uslAlt(run: RunResult): string {
  const fit = run.models!.usl!;
  const unit = rateUnit(run);
  const nStar =
    fit.nStar !== null && fit.nStarFar
      ? `N* = ${sig3(fit.nStar)} lies more than 2× past the measured N: no peak predicted, not drawn`
      : fit.nStar !== null && fit.peakFar
        ? `N* = ${sig3(fit.nStar)}, where the curve would peak far above any step: no peak predicted, not drawn`
        : fit.nStar === null || fit.peakPerSec === null
          ? 'no N* (the curve does not turn)'
          : uslShowsNStar(run)
            ? `N* = ${sig3(fit.nStar)}, peak ${fmtRate(fit.peakPerSec)} ${unit}, ruled`
            : `N* = ${sig3(fit.nStar)} (peak ${fmtRate(fit.peakPerSec)} ${unit}) lies beyond the measured N, not drawn`;
  return `Throughput against concurrency N = X × W of ${stepsText(uslFitted(run))}${uslScopeText(run)}, with the Universal Scalability Law curve fitted to them (α = ${fit.alpha.toPrecision(3)}, β = ${fit.beta.toPrecision(3)}, R² = ${fit.r2.toFixed(3)}); ${nStar}`;
}

/** Names listed in a chart by name's alt text; past this many, how many more. */
const NAMES_LISTED = 8;

export function namesAlt(run: RunResult): string {
  const steps = namedSteps(run);
  const names = nameOrder(run).filter((name) =>
    steps.some((s) => latencyRows(s, s.byName?.[name]?.latency ?? [], NAME_QUANTILES).length > 0),
  );
  const titles = names.map((n) => (isTransaction(run, n) ? `${n} (transaction)` : n));
  const shown =
    titles.length <= NAMES_LISTED
      ? listed(titles)
      : `${titles.slice(0, NAMES_LISTED).join(', ')} and ${plural(titles.length - NAMES_LISTED, 'more')}`;
  const knee = kneeResult(run);
  const rule = !knee
    ? ''
    : `; ${run.capacityPerSec === null ? 'the last step held' : 'the knee'} (step ${stepNo(knee.index)}) ruled in each`;
  const shownSteps = new Set(
    steps
      .flatMap((s) => names.flatMap((n) => latencyRows(s, s.byName?.[n]?.latency ?? [], NAME_QUANTILES)))
      .map((r) => r.step),
  );
  return `Latency by name: p50, p90 and p99 per step of each name's successful ones, one panel for each of ${plural(names.length, 'name')} on one log scale: ${shown}${rule}${shadedText(run, shownSteps)}`;
}
