/**
 * Derives the stepped plan of an imported k6 run from its own data, for when the user does not
 * give it. The offered rate is in the arrivals, never in what completed: each second's iterations
 * started plus dropped_iterations, both at the second they were due (the ingest's offeredPerS,
 * which neither an iteration longer than the buckets wait for nor whole-second CSV timestamps
 * shift: bucketizer.ts). It is flat during a hold and moves during a ramp, also in a step whose
 * target collapsed (what it could not serve was dropped, and a drop is an arrival).
 *
 *   hold   = a maximal run of >= 3 seconds whose offered rates stay within tol of each other,
 *            tol = max(2, 3% of the rate)
 *   rate   = the median of the run's seconds (an edge second that was partly ramp, or a second
 *            that whole-second timestamps made one arrival richer or poorer, does not move it)
 *   ramp   = the gap between one hold's end and the next one's start (the first starts at t0)
 *   start, step = the least-squares line rate_i = start + i x step through the holds' rates,
 *            each rounded: a hold 1/s off (239 for 240) moves neither
 *
 * Pure; returns a `steps` config section when every hold lies within tol of start + i x step and
 * within 1 s of its place with equal ramps and holds, else says why not (the user then passes the
 * step flags).
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

/**
 * Offered arrivals per second from stored buckets, indexed by tS (missing seconds are 0): what an
 * import without the ingest's own tally has (an iteration counted late sits in a later bucket).
 */
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
    if (t - from >= MIN_HOLD_S && offered[from] > 0)
      holds.push({ fromS: from, toS: t, ratePerSec: Math.round(median(offered.slice(from, t))) });
    from = t;
  }
  return holds;
}

function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Least squares of rate_i = start + i x step over the holds (i = 0, 1, ...), both rounded. */
function fitLine(rates: readonly number[]): { startPerSec: number; stepPerSec: number } {
  const n = rates.length;
  const meanI = (n - 1) / 2;
  const meanR = rates.reduce((a, r) => a + r, 0) / n;
  let cov = 0;
  let varI = 0;
  rates.forEach((r, i) => {
    cov += (i - meanI) * (r - meanR);
    varI += (i - meanI) ** 2;
  });
  const step = cov / varI;
  return { startPerSec: Math.round(meanR - step * meanI), stepPerSec: Math.round(step) };
}

function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
}

/** @param offered arrivals due per second (IngestStats.offeredPerS); from the records when absent. */
export function deriveSteps(
  records: readonly BucketRecord[],
  offered: readonly number[] = offeredPerSecond(records),
): { steps: DerivedSteps; holds: Hold[] } | { steps: null; why: string } {
  const holds = findHolds(offered);
  if (holds.length < 2)
    return { steps: null, why: `found ${holds.length} hold(s) of a steady offered rate; a stepped run has at least 2` };
  const holdS = mode(holds.map((h) => h.toS - h.fromS));
  const rampS = mode(holds.slice(1).map((h, i) => h.fromS - holds[i].toS));
  const { startPerSec, stepPerSec } = fitLine(holds.map((h) => h.ratePerSec));
  if (stepPerSec <= 0 || startPerSec <= 0)
    return {
      steps: null,
      why: `the holds' rates do not rise from a start above 0 (${holds.map((h) => h.ratePerSec).join(', ')} arrivals/s)`,
    };
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
