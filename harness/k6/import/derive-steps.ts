/**
 * Derives the stepped plan of an imported k6 run from its own data, for when the user does not
 * give it: the offered rate of each second (iterations started + dropped, both counted in the
 * second they were due) is flat during a hold and moves during a ramp.
 *
 *   hold   = a maximal run of >= 3 seconds whose offered rates stay within tol of each other,
 *            tol = max(2, 3% of the rate)
 *   rate   = mean of the run without its first and last second (edges may be partial seconds)
 *   ramp   = the gap between one hold's end and the next one's start (the first starts at t0)
 *
 * Pure; returns a `steps` config section when the holds form start + i x step with equal ramps
 * and holds, else says why not (the user then passes the step flags).
 */
import type { BucketRecord } from '../../../analysis/types.ts';

export interface DerivedSteps {
  startPerSec: number;
  stepPerSec: number;
  maxPerSec: number;
  rampS: number;
  holdS: number;
}

interface Hold {
  fromS: number;
  toS: number;
  ratePerSec: number;
}

const MIN_HOLD_S = 3;

function tolOf(ratePerSec: number): number {
  return Math.max(2, 0.03 * ratePerSec);
}

/** Offered arrivals per second, indexed by tS (missing seconds are 0). */
export function offeredPerSecond(records: readonly BucketRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) out[r.tS] = (out[r.tS] ?? 0) + r.started + r.dropped;
  return Array.from(out, (v) => v ?? 0);
}

export function findHolds(offered: readonly number[]): Hold[] {
  const holds: Hold[] = [];
  let from = 0;
  for (let t = 1; t <= offered.length; t++) {
    const run = offered.slice(from, t + 1);
    const flat = t < offered.length && Math.max(...run) - Math.min(...run) <= tolOf(Math.max(...run));
    if (flat) continue;
    if (t - from >= MIN_HOLD_S && offered[from] > 0) {
      const inner = offered.slice(from + 1, t - 1);
      holds.push({ fromS: from, toS: t, ratePerSec: Math.round(inner.reduce((a, v) => a + v, 0) / inner.length) });
    }
    from = t;
  }
  return holds;
}

function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
}

export function deriveSteps(
  records: readonly BucketRecord[],
): { steps: DerivedSteps; holds: Hold[] } | { steps: null; why: string } {
  const holds = findHolds(offeredPerSecond(records));
  if (holds.length < 2)
    return { steps: null, why: `found ${holds.length} hold(s) of a steady offered rate; a stepped run has at least 2` };
  const holdS = mode(holds.map((h) => h.toS - h.fromS));
  const rampS = mode(holds.slice(1).map((h, i) => h.fromS - holds[i].toS));
  const stepPerSec = mode(holds.slice(1).map((h, i) => h.ratePerSec - holds[i].ratePerSec));
  const startPerSec = holds[0].ratePerSec;
  if (stepPerSec <= 0)
    return { steps: null, why: `the holds' rates do not rise (${holds.map((h) => h.ratePerSec).join(', ')} req/s)` };
  const off = holds.find(
    (h, i) =>
      Math.abs(h.ratePerSec - (startPerSec + i * stepPerSec)) > tolOf(h.ratePerSec) ||
      Math.abs(h.fromS - (rampS + i * (rampS + holdS))) > 1,
  );
  if (off) {
    return {
      steps: null,
      why: `the holds (${holds.map((h) => `${h.ratePerSec}/s at ${h.fromS}-${h.toS} s`).join(', ')}) are not start + i x step with ${rampS} s ramps and ${holdS} s holds`,
    };
  }
  return {
    steps: { startPerSec, stepPerSec, maxPerSec: startPerSec + (holds.length - 1) * stepPerSec, rampS, holdS },
    holds,
  };
}
