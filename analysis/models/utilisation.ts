/**
 * Utilisation and queueing amplification per step:
 *
 *   rho = X / mu               mu = the saturation throughput (see below)
 *   A   = 1 / (1 - rho)        how much queueing stretches the time in system (M/M/1: R = S / (1 - rho))
 *
 * mu is max(capacity, peak): the highest steady throughput the target reached. With mu = capacity
 * alone the knee step would always read rho = 1 and A = infinity, which says nothing; the peak is
 * at least the capacity and usually a little above it (docs/decisions/201-models-in-the-report.md).
 * A is set beside the measured latency inflation W_i / W_1 so a reader sees whether the target
 * queues like the textbook says (they agree) or sheds, times out or collapses (they part).
 */
import type { LittleRow, UtilisationRow } from '../types.ts';

/**
 * The highest rho whose 1 / (1 - rho) the report prints (docs/decisions/055). mu is the highest
 * throughput a step reached, a measurement a few percent wide (a rerun at one rate read 440.0 and
 * 419.7 arrivals/s), and the knee's own rho is the share of mu its throughput reached, so near 1
 * the figure turns on mu's last percent (0.977 gives 42.6x; a peak 1.1% lower, 82x). Up to 0.8 a
 * mu 5% off moves it by under a quarter, past 0.8 by more: the bound decision 052 reads a queue's
 * wait by too.
 */
export const RHO_READABLE_MAX = 0.8;

/** The saturation throughput mu, null when no step held (then there is no capacity to be near). */
export function saturationPerSec(capacityPerSec: number | null, peakPerSec: number): number | null {
  if (capacityPerSec === null || capacityPerSec <= 0) return null;
  return Math.max(capacityPerSec, peakPerSec);
}

/**
 * rho, 1 / (1 - rho) and W_i / W_1 for every step with data. Steps after the knee are saturated
 * whatever their achieved X says (the offered rate exceeds what is served), so their A is null.
 */
export function utilisationRows(
  rows: readonly LittleRow[],
  muPerSec: number | null,
  kneeStep: number | null,
): UtilisationRow[] {
  if (muPerSec === null) return [];
  const firstMs = rows[0]?.meanMs ?? null;
  return rows.map((r) => {
    const rho = r.throughputPerSec / muPerSec;
    return {
      index: r.index,
      attempt: r.attempt ?? 1,
      rho,
      amplification: rho < 1 && (kneeStep === null || r.index <= kneeStep) ? 1 / (1 - rho) : null,
      latencyInflation: firstMs !== null && firstMs > 0 ? r.meanMs / firstMs : null,
    };
  });
}
