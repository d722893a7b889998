/**
 * Little's law per step: the mean number of arrivals in the system equals throughput times the
 * mean time each spends there,
 *
 *   N = X x W        (X successful arrivals/s over the steady window, W their mean time in s)
 *
 * It holds for any stable system whatever the distributions, so N is the concurrency the target
 * actually carried at each offered rate: the x axis of the USL fit. X and W are of one unit: with
 * a mix, W is the mean time of the entries' successful arrivals (a transaction's whole duration,
 * weighted by each entry's successes), not the mean of every request, which would pair arrivals/s
 * with the time of a transaction's inner requests. One request per arrival: the requests' mean.
 */
import type { LittleRow, StepResult } from '../types.ts';

/** The mean ms of a step's successful arrivals from its entries' rows (entryNames: the mix's entries); null without them. */
export function arrivalMeanMs(s: StepResult, entryNames: readonly string[]): number | null {
  if (!s.byName || entryNames.length === 0) return null;
  let sum = 0;
  let ok = 0;
  for (const name of new Set(entryNames)) {
    const n = Object.hasOwn(s.byName, name) ? s.byName[name] : undefined;
    if (!n || n.ok === 0 || n.meanMs === null) continue;
    sum += n.ok * n.meanMs;
    ok += n.ok;
  }
  return ok > 0 ? sum / ok : null;
}

/** N = X x W for every step with data (steady seconds, a mean time and some throughput). */
export function littleRows(steps: readonly StepResult[], entryNames: readonly string[] = []): LittleRow[] {
  const rows: LittleRow[] = [];
  for (const s of steps) {
    const meanMs = arrivalMeanMs(s, entryNames) ?? s.meanMs;
    if (s.steadyS === 0 || meanMs === null || s.throughputPerSec <= 0) continue;
    rows.push({
      index: s.index,
      attempt: s.attempt ?? 1,
      ratePerSec: s.ratePerSec,
      throughputPerSec: s.throughputPerSec,
      meanMs,
      concurrency: (s.throughputPerSec * meanMs) / 1000,
    });
  }
  return rows;
}
