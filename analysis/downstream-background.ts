/**
 * A downstream's ops that do not come from the service's requests: an exporter's own commands on
 * each scrape (INFO and friends, about 6 a second for Redis's at a 1 s interval), replication,
 * other clients. A constant background b adds b / X to the ops per request at X req/s, so the
 * fan-out of a service with a fixed k calls per request falls as the rate rises (3.10 at 10 req/s,
 * 2.59 at 50 for a service making 2.5, seen), which is no change in the service's calls.
 *
 * Over the holding steps i with figures (X_i req/s, Y_i ops/s), the least-squares line
 *
 *   k = sum((X_i - mean X)(Y_i - mean Y)) / sum((X_i - mean X)^2),   b = mean Y - k mean X
 *
 * explains the fan-out's move when b > 0, k > 0, and every step's ops/s lies within
 * BACKGROUND_FIT of the line (two steps always do: the line passes through both, and the fall
 * is then what a background would make, not proof of one). Pure.
 */

/** The largest share a step's ops/s may sit off the line for the background to explain the fan-out. */
export const BACKGROUND_FIT = 0.05;

export interface BackgroundFit {
  /** b: ops/s the downstream did besides the service's requests. */
  backgroundOpsPerSec: number;
  /** k: the service's own ops per request. */
  opsPerRequest: number;
}

/** The line of the file comment through `points` ({ perSec: X, opsPerSec: Y }), or null where it does not explain them. */
export function backgroundFit(points: readonly { perSec: number; opsPerSec: number }[]): BackgroundFit | null {
  if (points.length < 2) return null;
  const mx = points.reduce((a, p) => a + p.perSec, 0) / points.length;
  const my = points.reduce((a, p) => a + p.opsPerSec, 0) / points.length;
  const sxx = points.reduce((a, p) => a + (p.perSec - mx) ** 2, 0);
  if (sxx <= 0) return null;
  const k = points.reduce((a, p) => a + (p.perSec - mx) * (p.opsPerSec - my), 0) / sxx;
  const b = my - k * mx;
  if (b <= 0 || k <= 0) return null;
  const fits = points.every((p) => Math.abs(p.opsPerSec - (b + k * p.perSec)) <= BACKGROUND_FIT * p.opsPerSec);
  return fits ? { backgroundOpsPerSec: b, opsPerRequest: k } : null;
}
