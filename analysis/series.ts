/**
 * The run's time series: one point per second and phase, every source merged, for the charts of
 * the HTML report (throughput, errors, drops, VUs, per-second p99). O(seconds), never O(requests).
 */
import { encodedPercentileMs } from './histogram.ts';
import type { AnalysedRecord, GaugeSeries, SeriesPoint } from './types.ts';

/** p99 of one merged bucket's successful durations (ms); null when it holds none. */
function p99Of(r: AnalysedRecord): number | null {
  if (r.ok === 0 || !r.hist.duration) return null;
  return encodedPercentileMs(r.hist.duration, 99);
}

/**
 * One point per bucket of `merged` (already merged per phase and second by mergeRecords, so
 * sorted by phase, then tS). VU figures are already summed across sources by the merge. `p99Ms`:
 * each bucket's p99 already decoded (durations.ts decodeDurations of the same `merged`).
 */
export function seriesOf(merged: readonly AnalysedRecord[], p99Ms?: readonly (number | null)[]): SeriesPoint[] {
  return merged.map((r, i) => ({
    tS: r.tS,
    phase: r.phase,
    ok: r.ok,
    failed: r.completed - r.ok,
    offered: r.started + r.dropped,
    dropped: r.dropped,
    vusActive: r.vusActiveMax,
    vusAllocated: r.vusAllocated,
    p99Ms: p99Ms ? (p99Ms[i] ?? null) : p99Of(r),
  }));
}

/** The parts of a probe reading (probes.ndjson, kind "scrape") that the time series charts. */
export interface GaugeReading {
  kind?: string;
  phase?: string;
  tS: number;
  requestsCount?: number | null;
  poolActive?: number | null;
  poolPending?: number | null;
  poolMax?: number | null;
  topology?: number | null;
  gauges?: Record<string, number>;
}

/** Named gauges of readings, in the order first seen: pool figures, topology, then the user's extras. */
function namedValues(r: GaugeReading): [string, number | null | undefined][] {
  return [
    ['pool active', r.poolActive],
    ['pool pending', r.poolPending],
    ['pool max', r.poolMax],
    ['topology', r.topology],
    ...Object.entries(r.gauges ?? {}),
  ];
}

/**
 * The server's throughput is read over at least this long: two readings taken milliseconds apart
 * (a steady window's edge next to the periodic scrape) turned 10 requests in 15 ms into a spike
 * of 667 req/s on a run at 500/s (the demo, 12-05).
 */
export const SERVER_RATE_MIN_S = 0.5;

/** The gauge series of the server's own throughput (gaugesOf), charted on a panel of its own. */
export const SERVER_RATE_GAUGE = 'server req/s';

/**
 * Gauge series of the "steps" phase from probe readings, plus the server's own throughput (delta
 * count / delta t from the latest reading at least SERVER_RATE_MIN_S earlier, at the later
 * reading's time; none across a counter that went back, a restarted server's). Readings of other
 * phases run on another clock and are left out; non-finite values are skipped.
 */
export function gaugesOf(readings: readonly GaugeReading[], phase = 'steps'): GaugeSeries[] {
  const own = readings
    .filter((r) => (r.kind ?? 'scrape') === 'scrape' && (r.phase ?? phase) === phase && Number.isFinite(r.tS))
    .sort((a, b) => a.tS - b.tS);
  const byName = new Map<string, GaugeSeries['points']>();
  const add = (name: string, tS: number, value: number | null | undefined) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    const points = byName.get(name) ?? [];
    points.push({ tS, value });
    byName.set(name, points);
  };
  for (const r of own) for (const [name, value] of namedValues(r)) add(name, r.tS, value);
  const counted = own.filter((r) => r.requestsCount != null);
  let base = 0;
  counted.forEach((r, i) => {
    while (base + 1 < i && counted[base + 1].tS <= r.tS - SERVER_RATE_MIN_S) base++;
    const prev = counted[base];
    const delta = r.requestsCount! - prev.requestsCount!;
    if (base < i && r.tS - prev.tS >= SERVER_RATE_MIN_S && delta >= 0)
      add(SERVER_RATE_GAUGE, r.tS, delta / (r.tS - prev.tS));
  });
  return [...byName.entries()].map(([name, points]) => ({ name, points }));
}
