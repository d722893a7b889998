/**
 * Little's law per step: the mean number in the system equals throughput times the mean time each
 * spends there,
 *
 *   N = X x W        (X successful arrivals/s over the steady window, W their mean time in s)
 *
 * It holds for any stable system whatever the distributions. N is the x axis of the USL fit, and
 * the fit is of the target's concurrency, so N must count what the target holds: requests in
 * service, not VUs asleep between them.
 *
 * One request per arrival (no transaction, no k6 iteration of several requests): N = X x W with W
 * the requests' mean (a mix's entries' mean, weighted by their successes: the same figure).
 *
 * Several requests per arrival (a transaction, or an imported k6 iteration of several): an
 * arrival's own time holds its think time (ctx.sleep between requests), so X x W would count
 * arrivals in flight, asleep or not (a review's mix with 1000 ms of think time read N = 9.86 where
 * the target held 39 req/s x 21 ms = 0.8 requests). N is then the requests in flight at the
 * target, the sum over the step's request names (byName, a transaction's own row left out) of
 *
 *   N = sum_r X_r x W_r       (X_r its successful requests/s, W_r their mean time)
 *
 * and W = N / X, an arrival's mean time at the target: its requests' latencies, not the think
 * time between them. Where a step records no mean per request name (an import without names),
 * there is no such N: requestsInFlight says so, and the fit is withheld (models/index.ts).
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

/**
 * The requests in flight at the target over a step's steady window: the sum over its request
 * names (not a transaction's own row) of successful requests/s x their mean latency, in requests.
 * Null where it cannot be had: the step records no request name, or a name with successes and no mean.
 */
export function requestsInFlight(s: StepResult): number | null {
  const requests = Object.values(s.byName ?? {}).filter((n) => !n.transaction);
  if (requests.length === 0) return null;
  let inFlight = 0;
  for (const n of requests) {
    if (n.ok === 0) continue;
    if (n.meanMs === null) return null;
    inFlight += (n.throughputPerSec * n.meanMs) / 1000;
  }
  return inFlight;
}

/** A step Little's law has data for: steady seconds and some throughput. */
function hasData(s: StepResult): boolean {
  return s.steadyS > 0 && s.throughputPerSec > 0;
}

/** N = X x W for every step with data (steady seconds, a mean time and some throughput). */
export function littleRows(steps: readonly StepResult[], entryNames: readonly string[] = []): LittleRow[] {
  const rows: LittleRow[] = [];
  for (const s of steps) {
    const meanMs = arrivalMeanMs(s, entryNames) ?? s.meanMs;
    if (!hasData(s) || meanMs === null) continue;
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

/**
 * N as the requests in flight at the target for every step with data, W = N / X (ms per arrival at
 * the target); or the first step with data whose request-level N cannot be had.
 */
export function requestRows(steps: readonly StepResult[]): { rows: LittleRow[] } | { missing: StepResult } {
  const rows: LittleRow[] = [];
  for (const s of steps) {
    if (!hasData(s)) continue;
    const concurrency = requestsInFlight(s);
    if (concurrency === null) return { missing: s };
    rows.push({
      index: s.index,
      attempt: s.attempt ?? 1,
      ratePerSec: s.ratePerSec,
      throughputPerSec: s.throughputPerSec,
      meanMs: (concurrency * 1000) / s.throughputPerSec,
      concurrency,
    });
  }
  return { rows };
}
