/**
 * When is a warmed-up target stable? Warmup runs at a moderate rate and is cut into windows of
 * `windowS` seconds; it is stable once the last `windows` windows agree within `tolerance`:
 *
 *   spread(x) = (max x - min x) / mean x  <= tolerance   for throughput, and
 *   max p50 - min p50 <= max(tolerance x mean p50, floorMs)  for the median latency
 *
 * (the floor keeps sub-millisecond medians on loopback from never looking stable).
 */
import type { BucketRecord, RateUnit, WarmupRecord } from './types.ts';
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

export function warmupWindows(
  records: readonly BucketRecord[],
  phase: string,
  windowS: number,
  untilS: number,
): WarmupWindow[] {
  const out: WarmupWindow[] = [];
  for (let from = 0; from + windowS <= untilS; from += windowS) {
    const a = aggregate(records, phase, from, from + windowS);
    out.push({ fromS: from, throughputPerSec: a.ok / windowS, p50Ms: percentileMs(a.hist.duration, 50) });
  }
  return out;
}

export function warmupStable(
  windows: WarmupWindow[],
  count: number,
  tolerance: number,
  unit: RateUnit = 'req/s',
  floorMs = 0.5,
): WarmupVerdict {
  const last = windows.slice(-count);
  if (last.length < count) return { stable: false, windows, detail: `${windows.length} of ${count} windows so far` };
  const xs = last.map((w) => w.throughputPerSec);
  const ms = last.map((w) => w.p50Ms ?? NaN);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanMs = ms.reduce((a, b) => a + b, 0) / ms.length;
  const spreadX = meanX > 0 ? (Math.max(...xs) - Math.min(...xs)) / meanX : Infinity;
  const spreadMs = Math.max(...ms) - Math.min(...ms);
  const stable =
    meanX > 0 && spreadX <= tolerance && Number.isFinite(spreadMs) && spreadMs <= Math.max(tolerance * meanMs, floorMs);
  const detail = `last ${count} windows: throughput ${meanX.toFixed(1)} ${unit} (spread ${(spreadX * 100).toFixed(1)}%), median ${Number.isFinite(meanMs) ? meanMs.toFixed(2) : 'n/a'} ms (spread ${Number.isFinite(spreadMs) ? spreadMs.toFixed(2) : 'n/a'} ms)`;
  return { stable, windows, detail };
}

/** Readings of the topology probe: the fields of a ServerSample the warmup needs. */
export type TopologyReading = { tS: number; phase: string; topology: number | null };

/**
 * Has the topology been steady over [fromS, toS]: exactly one value read (as verdicts.ts
 * topologyChanged reads a step)? No reading at all is not steady but unknown: an elastic layer that cannot be read has not been shown to settle.
 */
export function topologySteady(
  samples: readonly TopologyReading[],
  phase: string,
  fromS: number,
  toS: number,
): { steady: boolean; values: number[] } {
  const values = [
    ...new Set(
      samples
        .filter((s) => s.phase === phase && s.tS >= fromS && s.tS <= toS && s.topology !== null)
        .map((s) => s.topology as number),
    ),
  ];
  return { steady: values.length === 1, values };
}

export interface WarmupProgress {
  verdict: WarmupVerdict;
  /** Seconds since the warmup started (its ramp included). */
  elapsedS: number;
  /** warmup.minS: the warmup never stops before it. */
  minS: number;
  /** The topology over the stable windows' span; null when no topology probe is set. */
  topology: { steady: boolean; values: number[] } | null;
}

/**
 * May the warmup stop now? Only once throughput and median are stable, the topology (when
 * probed) read one value over those same windows, and minS has passed. `waitingFor` names what
 * is still missing, for the detail line when maxS ends the warmup first.
 */
export function warmupDone(p: WarmupProgress): { done: boolean; waitingFor: string | null } {
  const missing: string[] = [];
  if (!p.verdict.stable) missing.push('throughput and median stable');
  if (p.topology && !p.topology.steady) {
    missing.push(
      p.topology.values.length === 0
        ? 'a topology reading'
        : `one topology value (read ${p.topology.values.join(' -> ')})`,
    );
  }
  if (p.elapsedS < p.minS) missing.push(`warmup.minS ${p.minS} s (at ${p.elapsedS} s)`);
  return { done: missing.length === 0, waitingFor: missing.length ? missing.join(', ') : null };
}

/**
 * The structured record of a warmup (run.json keeps it on the warmup stage). Its windows' fromS
 * is on the warmup phase's clock, the buckets' tS: the verdict's windows start after the first
 * second's ramp, so they move by `rampS`.
 */
export function warmupRecord(
  verdict: WarmupVerdict,
  stable: boolean,
  tookS: number,
  ratePerSec: number,
  rampS = 1,
): WarmupRecord {
  return {
    stable,
    tookS: Math.round(tookS * 1000) / 1000,
    ratePerSec,
    windows: verdict.windows.map((w) => ({
      fromS: w.fromS + rampS,
      throughputPerSec: w.throughputPerSec,
      p50Ms: w.p50Ms,
    })),
  };
}
