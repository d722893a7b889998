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
