/**
 * Cost per request, two ways:
 *
 *   fixed  = monthly cost / (capacity x seconds in a month)      (you pay for the box, used at capacity)
 *   usage  = (mean units/s over the knee step's steady window / X at the knee) x unit price
 *
 * A month is 365.2425 / 12 days (2,629,746 s). The usage series is a server-side gauge of units
 * consumed per second (CPU-seconds/s, GB-s/s, read units/s ...), recorded by a probe.
 */
import type { GaugeSeries, RunResult } from '../types.ts';
import { kneeResult } from '../deciding-steps.ts';

export const SECONDS_PER_MONTH = (365.2425 / 12) * 86_400;

export interface CostSettings {
  /** Price of the target per month (fixed pricing). */
  monthlyCost?: number;
  /** Name of a gauge series of units consumed per second (usage pricing). */
  usageSeries?: string;
  /** Price of one unit of that series. */
  unitPrice?: number;
  /** Currency label, e.g. "USD" (display only). */
  currency?: string;
}

export interface CostResult {
  currency: string;
  fixedPerRequest: number | null;
  /** The capacity it divides by is a lower bound (every holding step met the objective): the price is at most this. */
  fixedAtMost?: true;
  unitsPerRequest: number | null;
  usagePerRequest: number | null;
  /** Why a figure is missing, in words. */
  notes: string[];
}

/** Mean of the gauge's samples inside [fromS, toS); null when none. */
function meanInWindow(series: GaugeSeries, fromS: number, toS: number): number | null {
  const inside = series.points.filter((p) => p.tS >= fromS && p.tS < toS);
  return inside.length === 0 ? null : inside.reduce((a, p) => a + p.value, 0) / inside.length;
}

function usageCost(run: RunResult, c: CostSettings, notes: string[]): { units: number | null; price: number | null } {
  if (c.usageSeries === undefined) return { units: null, price: null };
  const knee = kneeResult(run);
  const series = run.gauges?.find((g) => g.name === c.usageSeries);
  if (!knee || knee.throughputPerSec <= 0) {
    notes.push('usage price: no holding step to measure units at');
    return { units: null, price: null };
  }
  if (!series) {
    notes.push(`usage price: the run has no gauge series "${c.usageSeries}"`);
    return { units: null, price: null };
  }
  const meanPerSec = meanInWindow(series, knee.steadyStartS, knee.steadyEndS);
  if (meanPerSec === null) {
    notes.push(`usage price: "${c.usageSeries}" has no sample in the knee step's steady window`);
    return { units: null, price: null };
  }
  const units = meanPerSec / knee.throughputPerSec;
  return { units, price: c.unitPrice === undefined ? null : units * c.unitPrice };
}

/** Both prices where their inputs exist; notes say why one is missing. */
export function costPerRequest(run: RunResult, c: CostSettings): CostResult {
  const notes: string[] = [];
  let fixedPerRequest: number | null = null;
  if (c.monthlyCost !== undefined) {
    if (run.capacityPerSec === null || run.capacityPerSec <= 0) notes.push('fixed price: no capacity established');
    else fixedPerRequest = c.monthlyCost / (run.capacityPerSec * SECONDS_PER_MONTH);
  }
  const usage = usageCost(run, c, notes);
  return {
    currency: c.currency ?? '',
    fixedPerRequest,
    unitsPerRequest: usage.units,
    usagePerRequest: usage.price,
    notes,
  };
}
