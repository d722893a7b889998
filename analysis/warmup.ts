/**
 * When is a warmed-up target stable? Warmup runs at a moderate rate and is cut into windows of
 * `windowS` seconds; it is stable once the last `windows` windows agree within `tolerance`:
 *
 *   spread(x) = (max x - min x) / mean x  <= tolerance   for throughput, and
 *   max p50 - min p50 <= max(tolerance x mean p50, floorMs)  for the median latency
 *
 * (the floor keeps sub-millisecond medians on loopback from never looking stable).
 */
import type { BucketRecord } from './types.ts';
import { aggregate } from './buckets.ts';
import { percentileMs } from './histogram.ts';

export interface WarmupWindow {
  fromS: number;
  throughputPerSec: number;
  p50Ms: number | null;
}

export interface WarmupVerdict {
  stable: boolean;
  windows: WarmupWindow[];
  detail: string;
}

export function warmupWindows(records: readonly BucketRecord[], phase: string, windowS: number, untilS: number): WarmupWindow[] {
  const out: WarmupWindow[] = [];
  for (let from = 0; from + windowS <= untilS; from += windowS) {
    const a = aggregate(records, phase, from, from + windowS);
    out.push({ fromS: from, throughputPerSec: a.ok / windowS, p50Ms: percentileMs(a.hist.duration, 50) });
  }
  return out;
}

export function warmupStable(windows: WarmupWindow[], count: number, tolerance: number, floorMs = 0.5): WarmupVerdict {
  const last = windows.slice(-count);
  if (last.length < count) return { stable: false, windows, detail: `${windows.length} of ${count} windows so far` };
  const xs = last.map((w) => w.throughputPerSec);
  const ms = last.map((w) => w.p50Ms ?? NaN);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanMs = ms.reduce((a, b) => a + b, 0) / ms.length;
  const spreadX = meanX > 0 ? (Math.max(...xs) - Math.min(...xs)) / meanX : Infinity;
  const spreadMs = Math.max(...ms) - Math.min(...ms);
  const stable = meanX > 0 && spreadX <= tolerance && Number.isFinite(spreadMs) && spreadMs <= Math.max(tolerance * meanMs, floorMs);
  const detail = `last ${count} windows: throughput ${meanX.toFixed(1)} req/s (spread ${(spreadX * 100).toFixed(1)}%), median ${Number.isFinite(meanMs) ? meanMs.toFixed(2) : 'n/a'} ms (spread ${Number.isFinite(spreadMs) ? spreadMs.toFixed(2) : 'n/a'} ms)`;
  return { stable, windows, detail };
}
