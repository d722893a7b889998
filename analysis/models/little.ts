/**
 * Little's law per step: the mean number of requests in the system equals throughput times the
 * mean time each spends there,
 *
 *   N = X x W        (X successful req/s over the steady window, W their mean latency in s)
 *
 * It holds for any stable system whatever the distributions, so N is the concurrency the target
 * actually carried at each offered rate: the x axis of the USL fit.
 */
import type { LittleRow, StepResult } from '../types.ts';

/** N = X x W for every step with data (steady seconds, a mean latency and some throughput). */
export function littleRows(steps: readonly StepResult[]): LittleRow[] {
  const rows: LittleRow[] = [];
  for (const s of steps) {
    if (s.steadyS === 0 || s.meanMs === null || s.throughputPerSec <= 0) continue;
    rows.push({
      index: s.index,
      attempt: s.attempt ?? 1,
      ratePerSec: s.ratePerSec,
      throughputPerSec: s.throughputPerSec,
      meanMs: s.meanMs,
      concurrency: (s.throughputPerSec * s.meanMs) / 1000,
    });
  }
  return rows;
}
