/**
 * The rate of a counter read as raw samples, one series (a replica, a label set) at a time, over a
 * window [fromMs, toMs]; then the sum over series. Several replicas are scraped at instants of
 * their own, so each series' difference covers its own span: a series' increase divided by the
 * window's span (first to last sample of any series) under-counts every series whose samples span
 * less of it (decision 048). For one series with samples t_0 < ... < t_k used:
 *
 *   increase = sum over i of (v_i - v_(i-1)), or v_i where v_i < v_(i-1) (a reset, as Prometheus's
 *              rate() counts it: the counter restarted from 0)
 *   ratePerSec = increase / ((t_k - t_0) / 1000)
 *   total    = sum over series of ratePerSec
 *
 * The samples used are the series' samples inside [fromMs, toMs] when it has two or more there;
 * with one inside, that one and the series' last sample before fromMs (the lookback's); a series
 * with no sample before fromMs whose first sample inside comes after `firstMs` (the window's first
 * sample, of any series) was born inside the window: it starts from 0 at firstMs (Micrometer
 * creates a timer at its first request; a replica scaled up). A series with none of these has no
 * rate and adds nothing. Samples that are not finite numbers are left out.
 */

/** One series' raw samples: [epoch ms, value], ascending. */
export interface CounterSeries {
  samples: ReadonlyArray<readonly [number, number]>;
}

/** One series' rate and the span (epoch ms) its samples cover. */
export interface SeriesRate {
  ratePerSec: number;
  firstMs: number;
  lastMs: number;
  /** The counter went backwards between two of the samples used. */
  reset: boolean;
}

/** The samples of `x` that its rate over the window is read from (the file comment); null when there are none. */
export function samplesUsed(
  x: CounterSeries,
  fromMs: number,
  toMs: number,
  firstMs: number,
): Array<readonly [number, number]> | null {
  const finite = x.samples.filter(([, v]) => Number.isFinite(v));
  const inside = finite.filter(([t]) => t >= fromMs && t <= toMs);
  const before = finite.filter(([t]) => t < fromMs).at(-1);
  if (inside.length === 0) return null;
  const born = !x.samples.some(([t]) => t < fromMs) && inside[0]![0] > firstMs;
  if (born) return [[firstMs, 0], ...inside];
  if (inside.length >= 2) return inside;
  return before ? [before, inside[0]!] : null;
}

/** One series' reset-aware rate over the window; null when it has no two samples to read it from. */
export function seriesRate(x: CounterSeries, fromMs: number, toMs: number, firstMs: number): SeriesRate | null {
  const used = samplesUsed(x, fromMs, toMs, firstMs);
  if (!used) return null;
  let increase = 0;
  let reset = false;
  for (let i = 1; i < used.length; i++) {
    const [prev, v] = [used[i - 1]![1], used[i]![1]];
    if (v < prev) reset = true;
    increase += v < prev ? v : v - prev;
  }
  const firstUsed = used[0]![0];
  const lastUsed = used.at(-1)![0];
  if (lastUsed <= firstUsed) return null;
  return { ratePerSec: increase / ((lastUsed - firstUsed) / 1000), firstMs: firstUsed, lastMs: lastUsed, reset };
}

/** The sum over series of their rates, the span their samples cover together, and whether any reset; null when none has a rate. */
export function sumOfRates(
  series: readonly CounterSeries[],
  fromMs: number,
  toMs: number,
  firstMs: number,
): SeriesRate | null {
  const rates = series.map((x) => seriesRate(x, fromMs, toMs, firstMs)).filter((r) => r !== null);
  if (rates.length === 0) return null;
  return {
    ratePerSec: rates.reduce((a, r) => a + r.ratePerSec, 0),
    firstMs: Math.min(...rates.map((r) => r.firstMs)),
    lastMs: Math.max(...rates.map((r) => r.lastMs)),
    reset: rates.some((r) => r.reset),
  };
}

/** The first sample time inside [fromMs, toMs] of any series (null when none has one there). */
export function firstInside(series: readonly CounterSeries[], fromMs: number, toMs: number): number | null {
  const times = series.flatMap((x) => x.samples.map(([t]) => t).filter((t) => t >= fromMs && t <= toMs));
  return times.length > 0 ? Math.min(...times) : null;
}
