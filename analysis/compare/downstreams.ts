/**
 * Two runs' downstreams (metrics.downstreams) at equal offered rates, by name: each one's ops per
 * successful request (its fan-out) in A and B, and a rise of it that the gate warns about. Pure.
 *
 * A fan-out is compared at equal rates only: within one run it drifts with the rate (a cache with a
 * TTL hits more often as the rate grows: 1.22 at 220 arrivals/s to 1.07 at 360 in one run). The
 * rise is the lower median over the rates both runs held of B / A (unbounded where A made none):
 *
 *   rise = lower median over shared held rates r of opsPerRequest_B(r) / opsPerRequest_A(r)
 *
 * warned at FAN_OUT_RISE or more over at least FAN_OUT_MIN_RATES rates.
 */
import { fmtTarget } from '../format.ts';
import type { DownstreamStep, RunResult } from '../types.ts';
import { compareRows } from './rows.ts';

/**
 * A fan-out B / A at or above this is a rise worth a warning: two runs of one service read -9% to
 * +1% apart at equal rates (a review's base-3 and base-4, a cache's hits moving with the machine's
 * noise), and a run's own steps may drift by up to FAN_OUT_CHANGE (15%) before it warns; one call
 * more per request where there was one is 2x (that review's redis1-1: about 1.9x). 1.25 clears the noise
 * and still catches a quarter more calls.
 */
export const FAN_OUT_RISE = 1.25;
/** One rate alone may be a stalled window's figure: a rise counts over this many rates or more. */
export const FAN_OUT_MIN_RATES = 2;

export interface DownstreamCompareRow {
  name: string;
  ratePerSec: number;
  /** Ops per successful request in each run; null where the run did not offer the rate or read no figure. */
  a: number | null;
  b: number | null;
}

function fanOutAt(steps: readonly DownstreamStep[] | undefined, name: string): number | null {
  return steps?.find((d) => d.name === name)?.opsPerRequest ?? null;
}

/** The names of the downstreams either run declared, A's order first. */
export function downstreamNames(a: RunResult, b: RunResult): string[] {
  return [...new Set([...(a.downstreams ?? []), ...(b.downstreams ?? [])].map((d) => d.name))];
}

/** One row per downstream and rate either run offered where one of them read the downstream's fan-out. */
export function downstreamRows(a: RunResult, b: RunResult): DownstreamCompareRow[] {
  const rows = compareRows(a, b);
  return downstreamNames(a, b).flatMap((name) =>
    rows
      .map((r) => ({
        name,
        ratePerSec: r.ratePerSec,
        a: fanOutAt(r.a?.downstreams, name),
        b: fanOutAt(r.b?.downstreams, name),
      }))
      .filter((r) => r.a !== null || r.b !== null),
  );
}

/**
 * The lower median: of an even count, the lower of the middle two, so that of two rates both must
 * have risen (their mean let a spike at one rate, 1 and 1 against 1 and 1.5, read "rose 1.25x").
 */
function lowerMedian(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.ceil(s.length / 2) - 1];
}

/** B's ops per request over A's; a downstream A never called that B calls rose without bound. */
function riseOf(a: number, b: number): number {
  if (a > 0) return b / a;
  return b > 0 ? Infinity : 1;
}

/**
 * Each downstream whose fan-out rose from `base` to `run` by FAN_OUT_RISE or more at the rates both
 * held, one sentence each; `labels` name the runs (the gate's: the baseline, the run).
 */
export function fanOutRises(base: RunResult, run: RunResult, labels: readonly [string, string] = ['A', 'B']): string[] {
  const held = new Set(
    compareRows(base, run)
      .filter((r) => r.a?.verdict === 'holds' && r.b?.verdict === 'holds')
      .map((r) => r.ratePerSec),
  );
  const out: string[] = [];
  for (const name of downstreamNames(base, run)) {
    const both = downstreamRows(base, run).filter(
      (r) => r.name === name && held.has(r.ratePerSec) && r.a !== null && r.b !== null,
    );
    if (both.length < FAN_OUT_MIN_RATES) continue;
    const rise = lowerMedian(both.map((r) => riseOf(r.a!, r.b!)));
    if (rise < FAN_OUT_RISE) continue;
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)} to ${Math.max(...xs).toFixed(2)}`;
    out.push(
      `${name}'s fan-out rose ${Number.isFinite(rise) ? `${rise.toFixed(2)}x` : 'from none'}: ${range(both.map((r) => r.b!))} ops per request in ${labels[1]} against ${range(both.map((r) => r.a!))} in ${labels[0]} at the ${both.length} rates both held (${both.map((r) => fmtTarget(r.ratePerSec)).join(', ')}): the service calls ${name} more per request, which lowers the capacity ${name} leaves it`,
    );
  }
  return out;
}
