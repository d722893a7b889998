/**
 * When is a warmed-up target stable? Warmup runs at a moderate rate and is cut into windows of
 * `windowS` seconds; it is stable once the last `windows` windows agree within `tolerance`:
 *
 *   spread(x) = (max x - min x) / mean x  <= tolerance   for throughput, and
 *   max p50 - min p50 <= max(tolerance x mean p50, floorMs)  for the median latency
 *
 * (the floor keeps sub-millisecond medians on loopback from never looking stable).
 *
 * A mix is judged by each name's median instead, for every name with NAME_MIN_SAMPLES successful
 * ones in each of those windows: a median of every request pooled lands between the entries' modes
 * (a 50/50 mix of 2 and 10 ms flips between them window to window) and never looks stable. Without
 * such a name (a slow rate), the pooled median is judged as for one request.
 */
import type { AnalysedRecord, RateUnit, WarmupRecord } from './types.ts';
import { aggregate } from './buckets.ts';
import { percentileMs } from './histogram.ts';
import { fmtPercent, unitCounts } from './format.ts';
import { ERROR_NOTE_MIN } from './failure-clause.ts';

export interface WarmupWindow {
  fromS: number;
  throughputPerSec: number;
  /** Failed completions per second (absent: none counted). */
  failedPerSec?: number;
  p50Ms: number | null;
  /**
   * A mix's median by name and its successful count (a transaction's: its whole duration), with
   * its failed count (absent: none) and whether it is a transaction (its counts are arrivals).
   */
  byName?: Record<string, WarmupName>;
}

export interface WarmupName {
  p50Ms: number | null;
  n: number;
  failed?: number;
  transaction?: true;
}

/** Successful ones a name needs in every judged window for its own median to judge the warmup by. */
export const NAME_MIN_SAMPLES = 10;

export interface WarmupVerdict {
  stable: boolean;
  windows: WarmupWindow[];
  detail: string;
}

export function warmupWindows(
  records: readonly AnalysedRecord[],
  phase: string,
  windowS: number,
  untilS: number,
): WarmupWindow[] {
  const out: WarmupWindow[] = [];
  for (let from = 0; from + windowS <= untilS; from += windowS) {
    const a = aggregate(records, phase, from, from + windowS);
    const w: WarmupWindow = {
      fromS: from,
      throughputPerSec: a.ok / windowS,
      ...(a.failed > 0 ? { failedPerSec: a.failed / windowS } : {}),
      p50Ms: percentileMs(a.hist.duration, 50),
    };
    if (a.byName.size > 0)
      w.byName = Object.fromEntries(
        [...a.byName].map(([name, n]) => [
          name,
          {
            p50Ms: percentileMs(n.duration, 50),
            n: n.ok,
            ...(n.failed > 0 ? { failed: n.failed } : {}),
            ...(n.transaction ? { transaction: true as const } : {}),
          },
        ]),
      );
    out.push(w);
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
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const spreadX = meanX > 0 ? (Math.max(...xs) - Math.min(...xs)) / meanX : Infinity;
  const latency = latencyStable(last, tolerance, floorMs);
  const stable = meanX > 0 && spreadX <= tolerance && latency.stable;
  const detail = `last ${count} windows: throughput ${meanX.toFixed(1)} ${unit} (spread ${(spreadX * 100).toFixed(1)}%), ${latency.text}${failedText(last, unit)}`;
  return { stable, windows, detail };
}

/**
 * The windows' share of failed completions, said where it matters (ERROR_NOTE_MIN or more). Not
 * judged: failures at a steady share are as settled as the rest, and the stop line reads a failed
 * first step against them (failures-with-rate.ts); a warmup left unstable for them would only run
 * to warmup.maxS and call the target unsettled.
 */
function failedText(windows: readonly WarmupWindow[], unit: RateUnit): string {
  const failed = windows.reduce((a, w) => a + (w.failedPerSec ?? 0), 0);
  const completed = failed + windows.reduce((a, w) => a + w.throughputPerSec, 0);
  return completed > 0 && failed / completed >= ERROR_NOTE_MIN
    ? `; ${fmtPercent(failed / completed)} of their ${unitCounts(unit)} failed`
    : '';
}

/** Medians within max(tolerance x their mean, floorMs) of each other, and the words for them. */
function mediansStable(ms: readonly number[], tolerance: number, floorMs: number): { stable: boolean; text: string } {
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  const spread = Math.max(...ms) - Math.min(...ms);
  const stable = Number.isFinite(spread) && spread <= Math.max(tolerance * mean, floorMs);
  const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
  return { stable, text: `${fmt(mean)} ms (spread ${fmt(spread)} ms)` };
}

/** The latency half of the rule: each judged name's median for a mix, else the pooled median. */
function latencyStable(
  last: readonly WarmupWindow[],
  tolerance: number,
  floorMs: number,
): { stable: boolean; text: string } {
  const all = [...new Set(last.flatMap((w) => Object.keys(w.byName ?? {})))];
  const names = all.filter((name) =>
    last.every((w) => (w.byName?.[name]?.n ?? 0) >= NAME_MIN_SAMPLES && w.byName?.[name]?.p50Ms != null),
  );
  const rest = unjudgedText(
    last,
    all.filter((name) => !names.includes(name)),
    names.length > 0,
  );
  if (names.length === 0) {
    const pooled = mediansStable(
      last.map((w) => w.p50Ms ?? NaN),
      tolerance,
      floorMs,
    );
    return { stable: pooled.stable, text: `median ${pooled.text}${rest}` };
  }
  const each = names.map((name) => ({
    name,
    ...mediansStable(
      last.map((w) => w.byName![name].p50Ms!),
      tolerance,
      floorMs,
    ),
  }));
  return {
    stable: each.every((e) => e.stable),
    text: `median by name: ${each.map((e) => `${e.name} ${e.text}${e.stable ? '' : ' not stable'}`).join(', ')}${rest}`,
  };
}

/**
 * Why the names left out were: a name every one of whose requests failed in these windows has no
 * latency at all (said with its count, or it reads as a slow name), the others too few successful
 * ones in some window. Only the failed are said under a pooled median, which judged no name.
 */
function unjudgedText(last: readonly WarmupWindow[], unjudged: readonly string[], byName: boolean): string {
  const of = (name: string) => last.map((w) => w.byName?.[name]);
  const failed = (name: string) => of(name).reduce((a, x) => a + (x?.failed ?? 0), 0);
  const failedAll = unjudged.filter((name) => failed(name) > 0 && of(name).every((x) => (x?.n ?? 0) === 0));
  const thin = unjudged.filter((name) => !failedAll.includes(name));
  const few = thin.filter((name) => of(name).some((x) => (x?.n ?? 0) + (x?.failed ?? 0) < NAME_MIN_SAMPLES));
  const names = (k: number) => `${k} name${k === 1 ? '' : 's'}`;
  const counted = failedAll.map(
    (name) => `${name} (${failed(name)} ${of(name).some((x) => x?.transaction) ? 'arrivals' : 'requests'})`,
  );
  return [
    ...(failedAll.length > 0 ? [`all failed in these windows, so no latency to judge: ${counted.join(', ')}`] : []),
    ...(byName && few.length > 0 ? [`${names(few.length)} under ${NAME_MIN_SAMPLES} a window not judged`] : []),
    ...(byName && thin.length > few.length
      ? [`${names(thin.length - few.length)} under ${NAME_MIN_SAMPLES} successful a window not judged`]
      : []),
  ]
    .map((part) => `; ${part}`)
    .join('');
}

/** Readings of the topology probe: the fields of a ServerSample the warmup needs. */
export type TopologyReading = { tS: number; phase: string; topology: number | null };

/**
 * Has the topology been steady over [fromS, toS]: exactly one value read (as topology-changed.ts
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
      // the record keeps what the steps are compared with: each name's median and successful count
      ...(w.byName
        ? {
            byName: Object.fromEntries(Object.entries(w.byName).map(([name, x]) => [name, { p50Ms: x.p50Ms, n: x.n }])),
          }
        : {}),
    })),
  };
}
