/**
 * Each declared downstream over one steady window read through a Prometheus server
 * (metrics.prometheus): a downstream's series usually live on another endpoint than the target's
 * (Redis's exporter, mysqld_exporter), which Prometheus scrapes. Raw samples, as promql.ts reads
 * the request series and for the same reason (increase() extrapolates), and with each series read
 * at its own rate over its own samples, as there (analysis/counter-rate.ts, decision 048): several
 * exporters or replicas are scraped at instants of their own. For the span [t_first, t_last] those
 * rates were read over (first to last sample used, of any ops series):
 *
 *   ops          = sum over series of rate(ops) x (t_last - t_first)
 *   byLabel[v]   = the same over the series whose splitBy is v
 *   saturation   = the sum over series at its first sample time in [fromMs, toMs] (start), and
 *                  the max over t of the sum at t
 *   latency      = sum rate(<latency>_sum) and sum rate(<latency>_count), each x the span of the
 *                  latency series' own samples (it is often scraped from the service, at other
 *                  instants than the downstream's exporter)
 *
 *   rate(series) = its reset-aware increase over its samples inside the window (or its one there
 *                  and its last before fromMs) / the time they span; a reset counts the value after
 *                  it and marks the window counterReset; a series first seen inside the window,
 *                  with no sample in the lookback before fromMs, started at 0.
 *
 * A query that fails or a series that returns nothing is a problem line in the window, never an
 * error that loses the step's other figures.
 */
import type { DownstreamConfig, DownstreamWindow } from '../../analysis/types.ts';
import { downstreamProblem, NO_LABEL } from '../../analysis/downstream-window.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { mostInWindow, problemOf, rawSamples, selector, tooFewSamplesText, type RawSeries } from './promql.ts';
import { firstInside, sumOfRates } from '../../analysis/counter-rate.ts';

export interface DownstreamRaw {
  /** With samples from up to the lookback before fromMs (to tell a series born in the window). */
  ops: RawSeries[];
  /** With the same lookback: a gauge whose samples ended before the window is told from a wrong name. */
  saturation: RawSeries[] | null;
  latencySum: RawSeries[] | null;
  latencyCount: RawSeries[] | null;
}

/** Each declared downstream of `m` over a step's steady window, as PromqlWindow's field; {} when none is declared. */
export async function promqlDownstreams(
  m: NonNullable<PlateauConfig['metrics']>,
  t0EpochMs: number,
  step: { steadyStartS: number; steadyEndS: number },
): Promise<{ downstreams?: Record<string, DownstreamWindow> }> {
  if (!m.prometheus || m.downstreams.length === 0) return {};
  const fromMs = t0EpochMs + step.steadyStartS * 1000;
  const toMs = t0EpochMs + step.steadyEndS * 1000;
  const windows = await Promise.all(
    m.downstreams.map((d) => queryDownstream(m.prometheus!.url, d, fromMs, toMs, t0EpochMs)),
  );
  return { downstreams: Object.fromEntries(m.downstreams.map((d, i) => [d.name, windows[i]])) };
}

/** One downstream over [fromMs, toMs] (epoch ms); a failed query is the window's problem line. */
export async function queryDownstream(
  prometheusUrl: string,
  d: DownstreamConfig,
  fromMs: number,
  toMs: number,
  t0EpochMs: number,
  lookbackMs = 300_000,
): Promise<DownstreamWindow> {
  const get = (name: string, labels: Record<string, string>, from: number) =>
    rawSamples(prometheusUrl, selector(name, labels), from, toMs);
  const labels = d.labels ?? {};
  try {
    const [ops, saturation, latencySum, latencyCount] = await Promise.all([
      get(d.ops, labels, fromMs - lookbackMs),
      d.saturation ? get(d.saturation, labels, fromMs - lookbackMs) : null,
      d.latency ? get(`${d.latency}_sum`, {}, fromMs - lookbackMs) : null,
      d.latency ? get(`${d.latency}_count`, {}, fromMs - lookbackMs) : null,
    ]);
    return downstreamWindowOf(d, { ops, saturation, latencySum, latencyCount }, fromMs, toMs, t0EpochMs);
  } catch (err) {
    return {
      source: 'promql',
      fromS: (fromMs - t0EpochMs) / 1000,
      toS: (toMs - t0EpochMs) / 1000,
      ops: null,
      problems: [downstreamProblem(d.name, problemOf(err))],
    };
  }
}

/** The pure part of queryDownstream: the formulas of this file's comment over raw samples. */
export function downstreamWindowOf(
  d: DownstreamConfig,
  raw: DownstreamRaw,
  fromMs: number,
  toMs: number,
  t0EpochMs: number,
): DownstreamWindow {
  const w: DownstreamWindow = {
    source: 'promql',
    fromS: (fromMs - t0EpochMs) / 1000,
    toS: (toMs - t0EpochMs) / 1000,
    ops: null,
  };
  const problems: string[] = [];
  const say = (text: string) => problems.push(downstreamProblem(d.name, text));
  const missing = (name: string, field: string, series: readonly RawSeries[] = [], inWindow = 0) =>
    say(tooFewSamplesText(name, series, inWindow, fromMs, toMs, `metrics.downstreams' ${field} (name and labels)`));
  const reset = { hit: false };
  const most = mostInWindow(raw.ops, fromMs, toMs);
  if (most < 2) missing(d.ops, 'ops', raw.ops, most);
  else {
    const first = firstInside(raw.ops, fromMs, toMs)!;
    const ops = countOver(raw.ops, fromMs, toMs, first, reset);
    if (ops) {
      w.fromS = (ops.firstMs - t0EpochMs) / 1000;
      w.toS = (ops.lastMs - t0EpochMs) / 1000;
      w.ops = ops.count;
      if (d.splitBy) w.byLabel = byLabel(raw.ops, d.splitBy, { fromMs, toMs, first, span: ops }, reset);
    }
  }
  if (raw.saturation) {
    Object.assign(w, saturationOf(raw.saturation, fromMs, toMs));
    if (w.saturationMax === null) missing(d.saturation!, 'saturation', raw.saturation);
  }
  if (raw.latencySum && raw.latencyCount) {
    const mostOwn = mostInWindow(raw.latencyCount, fromMs, toMs);
    if (mostOwn < 2) missing(`${d.latency}_count`, 'latency', raw.latencyCount, mostOwn);
    else {
      const first = firstInside(raw.latencyCount, fromMs, toMs)!;
      const count = countOver(raw.latencyCount, fromMs, toMs, first, reset);
      if (count) {
        w.latencySumS = countOver(raw.latencySum, fromMs, toMs, first, reset, count)?.count ?? 0;
        w.latencyCount = count.count;
      }
    }
  }
  if (raw.ops.some((x) => x.samples.some(([, v]) => !Number.isFinite(v))))
    say(`${d.ops} holds samples that are not numbers (NaN, Inf): they are left out`);
  if (reset.hit) w.counterReset = true;
  if (problems.length > 0) w.problems = problems;
  return w;
}

/**
 * The sum over series of their rates (analysis/counter-rate.ts) times the span `over` (default: the
 * span those rates were read over, which it returns): what the series counted in it. Null when no
 * series has a rate.
 */
function countOver(
  series: RawSeries[],
  fromMs: number,
  toMs: number,
  first: number,
  reset: { hit: boolean },
  over?: { firstMs: number; lastMs: number },
): { count: number; firstMs: number; lastMs: number } | null {
  const r = sumOfRates(series, fromMs, toMs, first);
  if (!r) return null;
  if (r.reset) reset.hit = true;
  const span = over ?? r;
  return { count: (r.ratePerSec * (span.lastMs - span.firstMs)) / 1000, firstMs: span.firstMs, lastMs: span.lastMs };
}

function byLabel(
  series: RawSeries[],
  label: string,
  w: { fromMs: number; toMs: number; first: number; span: { firstMs: number; lastMs: number } },
  reset: { hit: boolean },
): Record<string, number> {
  const groups = new Map<string, RawSeries[]>();
  for (const x of series) {
    const k = x.labels[label] ?? NO_LABEL;
    groups.set(k, [...(groups.get(k) ?? []), x]);
  }
  return Object.fromEntries(
    [...groups].map(([k, xs]) => [k, countOver(xs, w.fromMs, w.toMs, w.first, reset, w.span)?.count ?? 0]),
  );
}

/** The gauge summed over series at each sample time in [fromMs, toMs]: its first sum and its max. */
function saturationOf(
  series: RawSeries[],
  fromMs: number,
  toMs: number,
): Pick<DownstreamWindow, 'saturationStart' | 'saturationMax'> {
  const sums = new Map<number, number>();
  for (const x of series)
    for (const [t, v] of x.samples)
      if (t >= fromMs && t <= toMs && Number.isFinite(v)) sums.set(t, (sums.get(t) ?? 0) + v);
  if (sums.size === 0) return { saturationStart: null, saturationMax: null };
  const first = Math.min(...sums.keys());
  return { saturationStart: sums.get(first)!, saturationMax: Math.max(...sums.values()) };
}
