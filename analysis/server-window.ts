/**
 * The target's own view of a steady window, from readings of its Prometheus metrics taken at the
 * window's edges: the request series' (serverWindow) and one mapped route's (routeWindow).
 *
 *   server X     = (count_end - count_start) / (t_end - t_start)
 *   server mean  = (sum_end - sum_start) / (count_end - count_start)
 *
 * With histogram buckets in the readings, the window also has the server's p50, p90 and p99 from
 * the bucket deltas (server-histogram.ts). A count, sum or bucket that goes backwards between two
 * readings inside the window (a restart) marks it counterReset: its throughput, mean and
 * percentiles are then null, never a negative figure, and the cross-check does not compare it.
 *
 * Apart from the cross-check (cross-check.ts), which judges these figures against the client's;
 * the downstreams' windows (downstream-window.ts) find their edges here too.
 */
import { histogramDelta, resetInside, serverPercentiles } from './server-histogram.ts';
import type { HistogramReading, RouteReading, ServerSample, ServerWindow } from './types.ts';

/** How far (s) a reading may sit from a window edge and still stand for it. */
export const EDGE_TOLERANCE_S = 1.0;

function nearest(samples: readonly ServerSample[], tS: number): ServerSample | null {
  let best: ServerSample | null = null;
  for (const s of samples)
    if (Math.abs(s.tS - tS) <= EDGE_TOLERANCE_S && (!best || Math.abs(s.tS - tS) < Math.abs(best.tS - tS))) best = s;
  return best;
}

/** The readings that stand for a window's edges (within EDGE_TOLERANCE_S), and those between them; null without both. */
export function windowEdges(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
): { a: ServerSample; b: ServerSample; inside: ServerSample[] } | null {
  const own = samples.filter((s) => s.phase === phase);
  const a = nearest(own, fromS);
  const b = nearest(own, toS);
  if (!a || !b || b.tS <= a.tS) return null;
  return { a, b, inside: own.filter((s) => s.tS >= a.tS && s.tS <= b.tS) };
}

function maxOf(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? Math.max(...xs) : null;
}

/**
 * How far (s) a window's length may be off: each edge reading stands for a moment within half its
 * own time of its tS, so the length is known within (readMs_a + readMs_b) / 2. Null where neither
 * reading carries its time (runs recorded before it).
 */
function edgeSpreadS(a: ServerSample, b: ServerSample): number | null {
  if (a.readMs === undefined && b.readMs === undefined) return null;
  return ((a.readMs ?? 0) + (b.readMs ?? 0)) / 2000;
}

export function serverWindow(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
): ServerWindow | null {
  const edges = windowEdges(samples, phase, fromS, toS);
  if (!edges) return null;
  const { a, b, inside } = edges;
  const figures = windowFigures(
    inside.map((s) => ({ count: s.requestsCount, sumS: s.requestsSumS, buckets: s.requestsBuckets })),
    b.tS - a.tS,
  );
  const maxS = maxOf(inside.slice(1).map((s) => s.requestsMaxS));
  const problems = requestProblems(inside);
  const spreadS = edgeSpreadS(a, b);
  return {
    source: 'scrape',
    fromS: a.tS,
    toS: b.tS,
    ...(spreadS !== null ? { edgeSpreadS: spreadS } : {}),
    throughputPerSec: figures.throughputPerSec,
    meanMs: figures.meanMs,
    maxMs: maxS === null ? null : maxS * 1000,
    poolActiveMax: maxOf(inside.map((s) => s.poolActive)),
    poolPendingMax: maxOf(inside.map((s) => s.poolPending)),
    poolMax: maxOf(inside.map((s) => s.poolMax)),
    ...poolMean(inside),
    ...(figures.percentiles !== undefined ? { percentiles: figures.percentiles } : {}),
    ...(figures.counterReset ? { counterReset: true } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** The mean of the active gauge and its readings, kept only where the gauge was read (stored runs without it render as before). */
function poolMean(inside: readonly ServerSample[]): Pick<ServerWindow, 'poolActiveMean' | 'poolReadings'> {
  const mean = meanOf(inside.map((s) => s.poolActive));
  return mean === null
    ? {}
    : { poolActiveMean: mean, poolReadings: inside.filter((s) => s.poolActive !== null).length };
}

/**
 * One mapped route's window (metrics.requests.routes): the same figures from the readings' route
 * entries; null without a reading of the route at both edges. The pool figures are the target's,
 * not the route's: null here.
 */
export function routeWindow(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
  name: string,
): ServerWindow | null {
  const edges = windowEdges(samples, phase, fromS, toS);
  if (!edges || !edges.a.routes?.[name] || !edges.b.routes?.[name]) return null;
  const { a, b, inside } = edges;
  const route = (s: ServerSample): RouteReading | undefined => s.routes?.[name];
  const figures = windowFigures(
    inside.map((s) => ({ count: route(s)?.count ?? null, sumS: route(s)?.sumS ?? null, buckets: route(s)?.buckets })),
    b.tS - a.tS,
  );
  // the route's own lines: the series' other lines are the step's window's
  const problems = requestProblems(inside).filter((l) => l.includes(`routes["${name}"]`));
  const spreadS = edgeSpreadS(a, b);
  return {
    source: 'scrape',
    fromS: a.tS,
    toS: b.tS,
    ...(spreadS !== null ? { edgeSpreadS: spreadS } : {}),
    throughputPerSec: figures.throughputPerSec,
    meanMs: figures.meanMs,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    ...(figures.percentiles !== undefined ? { percentiles: figures.percentiles } : {}),
    ...(figures.counterReset ? { counterReset: true } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

interface Cumulative {
  count: number | null;
  sumS: number | null;
  buckets?: HistogramReading | null;
}

/** Throughput, mean and percentiles between the first and last of `readings` (the window's edges), `seconds` apart. */
function windowFigures(
  readings: readonly Cumulative[],
  seconds: number,
): Pick<ServerWindow, 'throughputPerSec' | 'meanMs' | 'percentiles' | 'counterReset'> {
  const a = readings[0]!;
  const b = readings.at(-1)!;
  const reset =
    backwards(readings.map((r) => r.count)) ||
    backwards(readings.map((r) => r.sumS)) ||
    resetInside(readings.map((r) => r.buckets));
  if (reset) return { throughputPerSec: null, meanMs: null, percentiles: null, counterReset: true };
  const dCount = a.count !== null && b.count !== null ? b.count - a.count : null;
  const dSum = a.sumS !== null && b.sumS !== null ? b.sumS - a.sumS : null;
  // a histogram first seen inside the window was created there by its first request (nothing counted
  // at the start): it counts from zero; one missing at a start that counted requests cannot be told
  const start = a.buckets ?? (a.count ? undefined : null);
  const delta = b.buckets && start !== undefined ? histogramDelta(start, b.buckets) : null;
  return {
    throughputPerSec: dCount === null ? null : dCount / seconds,
    meanMs: dCount && dSum !== null ? (dSum / dCount) * 1000 : null,
    ...(delta ? { percentiles: serverPercentiles(delta) } : {}),
  };
}

/** True when a value is lower than the last value before it (nulls skipped). */
function backwards(xs: readonly (number | null)[]): boolean {
  let prev: number | null = null;
  for (const v of xs) {
    if (v === null) continue;
    if (prev !== null && v < prev) return true;
    prev = v;
  }
  return false;
}

/**
 * The readings' lines about the request series, deduplicated (the downstreams' lines, prefixed
 * "downstream <name>: " by analysis/downstream-window.ts, are theirs to show).
 */
function requestProblems(inside: readonly ServerSample[]): string[] {
  const lines = [...new Set(inside.flatMap((s) => s.problems ?? []).filter((l) => !l.startsWith('downstream ')))];
  // a label filter that matches nothing matches no route either (readings stored before its line alone said so)
  return lines.some((l) => l.startsWith('metrics.requests.labels '))
    ? lines.filter((l) => !l.startsWith('metrics.requests.routes['))
    : lines;
}

function meanOf(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? xs.reduce((a, v) => a + v, 0) / xs.length : null;
}
