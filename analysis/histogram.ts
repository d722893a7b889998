/**
 * HDR histograms for latency, in microseconds (1 µs .. 120 s, 3 significant digits: every
 * recorded value is exact to 0.1%). One place builds, encodes and decodes them so that every
 * producer (engines, k6 import) and consumer (analysis) agrees on the layout.
 */
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

export const HIST_MAX_US = 120_000_000;

/**
 * In-memory layout of the counts; the encoded form is identical for every layout.
 * 'packed' is small (engines keep several per second) but slow to add, decode and query
 * (each ~5-15 ms, since add() walks the whole counts array through the packed accessors);
 * 64 (a Float64Array, ~290 KB, counts exact to 2^53) is ~50x faster: the analysis sums with it.
 */
export type HistogramLayout = 'packed' | 64;

export function newHistogram(layout: HistogramLayout = 'packed'): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIST_MAX_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: layout,
    useWebAssembly: false,
  });
}

/** Records a duration given in microseconds, clamped into the trackable range. */
export function recordUs(h: Histogram, us: number): void {
  h.recordValue(Math.min(HIST_MAX_US, Math.max(1, Math.round(us))));
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** Decodes into a fresh histogram of our range (so add() never has to resize). */
export function decodeHistogram(b64: string, layout: HistogramLayout = 'packed'): Histogram {
  const out = newHistogram(layout);
  if (b64) out.add(hdr.decodeFromCompressedBase64(b64, layout, false));
  return out;
}

/** Value at percentile q (0..100) in ms, or null when empty. */
export function percentileMs(h: Histogram, q: number): number | null {
  return h.totalCount === 0 ? null : h.getValueAtPercentile(q) / 1000;
}
