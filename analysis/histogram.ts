/**
 * HDR histograms for latency, in microseconds (1 µs .. 120 s, 3 significant digits: every
 * recorded value is exact to 0.1%). One place builds, encodes and decodes them so that every
 * producer (engines, k6 import) and consumer (analysis) agrees on the layout.
 */
import * as hdr from 'hdr-histogram-js';
import {
  addSparse,
  encodeSparse,
  histogramMean,
  mergeSparse,
  sparseCounts,
  sparsePercentile,
  type SparseCounts,
} from './hdr-encoded.ts';

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

/**
 * Decodes into a histogram of our range (so add() never has to resize). One encoded with our range
 * (every producer builds with newHistogram) is used as decoded; another is copied into a fresh one.
 * (Copying always cost a second ~290 KB counts array and a walk of it per decode, 64 layout.)
 */
export function decodeHistogram(b64: string, layout: HistogramLayout = 'packed'): Histogram {
  if (!b64) return newHistogram(layout);
  const decoded = hdr.decodeFromCompressedBase64(b64, layout, false);
  if (
    decoded.highestTrackableValue === HIST_MAX_US &&
    decoded.numberOfSignificantValueDigits === 3 &&
    (decoded as hdr.Histogram & { lowestDiscernibleValue?: number }).lowestDiscernibleValue === 1
  ) {
    decoded.autoResize = true; // as newHistogram's
    return decoded;
  }
  const out = newHistogram(layout);
  out.add(decoded);
  return out;
}

/** Whether counts were encoded with newHistogram's layout (every producer's). */
const ours = (c: SparseCounts) => c.lowest === 1 && c.highest === HIST_MAX_US && c.digits === 3;

/**
 * An encoded histogram read once, as its non-zero counts (hdr-encoded.ts): summed with
 * addCountsInto and queried with countsPercentileMs without building a histogram for it. '' is
 * the empty histogram.
 */
export function countsOf(b64: string): SparseCounts {
  return b64 ? sparseCounts(b64) : { lowest: 1, highest: HIST_MAX_US, digits: 3, indices: [], counts: [], total: 0 };
}

/** What decodeHistogram(b64, 64) gives, from b64's counts: a histogram of our layout. */
function histogramOfCounts(c: SparseCounts): Histogram {
  const out = newHistogram(64);
  if (ours(c)) addSparse(out, c);
  else {
    const own = hdr.build({
      lowestDiscernibleValue: c.lowest,
      highestTrackableValue: c.highest,
      numberOfSignificantValueDigits: c.digits as 1 | 2 | 3 | 4 | 5,
      bitBucketSize: 64,
      useWebAssembly: false,
    });
    addSparse(own, c);
    out.add(own);
  }
  return out;
}

/** Adds counts into `sum` (mutates sum) as sum.add(decodeHistogram(b64)) does, by index where both have one layout. */
export function addCountsInto(sum: Histogram, c: SparseCounts): void {
  if (c.total > 0 && !addSparse(sum, c)) sum.add(histogramOfCounts(c));
}

/** Adds an encoded histogram into `sum` (mutates sum), as sum.add(decodeHistogram(b64)) does. */
export function addEncodedInto(sum: Histogram, b64: string): void {
  if (b64) addCountsInto(sum, countsOf(b64));
}

/**
 * The sum of encoded histograms, encoded: by their counts where all have our layout (the encoding
 * is then the one encodeHistogram gives for the sum: hdr-encoded.ts), else through a histogram.
 */
export function sumEncoded(encoded: readonly string[]): string {
  const sum = sumCounts(encoded);
  return 'indices' in sum ? encodeSparse(sum) : encodeHistogram(sum);
}

/** The counts of several encoded histograms summed: by index where all have our layout, else in a histogram. */
function sumCounts(encoded: readonly string[]): SparseCounts | Histogram {
  const parts = encoded.filter(Boolean).map(sparseCounts);
  if (parts.every(ours)) return mergeSparse(parts.length > 0 ? parts : [countsOf('')]);
  const sum = newHistogram(64);
  for (const c of parts) addCountsInto(sum, c);
  return sum;
}

/** Percentile q (0..100) in ms of several encoded histograms summed, or null when all are empty. */
export function sumPercentileMs(encoded: readonly string[], q: number): number | null {
  const sum = sumCounts(encoded);
  return 'indices' in sum ? countsPercentileMs(sum, q) : percentileMs(sum, q);
}

/** A histogram of our layout to map counts-array indices to values (sparsePercentile); never recorded into. */
let layoutOf: Histogram | null = null;

/** Percentile q (0..100) of counts in ms, or null when empty: percentileMs of the decoded histogram, unbuilt. */
export function countsPercentileMs(c: SparseCounts, q: number): number | null {
  if (c.total === 0) return null;
  if (!ours(c)) return percentileMs(histogramOfCounts(c), q);
  layoutOf ??= newHistogram('packed');
  return sparsePercentile(c, q, layoutOf) / 1000;
}

/** Percentile q (0..100) of an encoded histogram in ms, or null when empty. */
export function encodedPercentileMs(b64: string, q: number): number | null {
  return countsPercentileMs(countsOf(b64), q);
}

/** The mean of a histogram's values (µs; 0 when empty), as its `mean` gives it, about 10 x faster (hdr-encoded.ts). */
export function meanUs(h: Histogram): number {
  return histogramMean(h);
}

/** Value at percentile q (0..100) in ms, or null when empty. */
export function percentileMs(h: Histogram, q: number): number | null {
  return h.totalCount === 0 ? null : h.getValueAtPercentile(q) / 1000;
}

/** Values under this (µs) are counted in a plain array until flushed (HDR's first bucket, 1 µs apart). */
const BUFFERED_BELOW_US = 2048;

/**
 * An HDR histogram behind an exact buffer for its hot path: values under 2,048 µs (almost every
 * latency and lag of a healthy step) are counted per microsecond in a plain array and added to the
 * histogram by flush(), so the flushed histogram is the one that recording each value would have
 * built, at about a tenth of the cost per value (hdr-histogram-js computes every index with two
 * Math.pow calls; a request records seven: six phases and its lag). Larger values are recorded at once.
 */
export class BufferedHistogram {
  private readonly low = new Float64Array(BUFFERED_BELOW_US);
  private buffered = 0;

  constructor(private readonly h: Histogram = newHistogram(64)) {}

  recordUs(us: number): void {
    const v = Math.min(HIST_MAX_US, Math.max(1, Math.round(us)));
    if (v < BUFFERED_BELOW_US) {
      this.low[v]++;
      this.buffered++;
    } else this.h.recordValue(v);
  }

  get totalCount(): number {
    return this.h.totalCount + this.buffered;
  }

  /** The histogram with every buffered value added. */
  flush(): Histogram {
    if (this.buffered > 0) {
      const low = this.low;
      for (let v = 1; v < BUFFERED_BELOW_US; v++) {
        if (low[v] > 0) {
          this.h.recordValueWithCount(v, low[v]);
          low[v] = 0;
        }
      }
      this.buffered = 0;
    }
    return this.h;
  }

  reset(): void {
    if (this.buffered > 0) this.low.fill(0);
    this.buffered = 0;
    if (this.h.totalCount > 0) this.h.reset();
  }
}
