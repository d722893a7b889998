/**
 * Each merged second's successful durations, decoded once for the whole analysis: the time series
 * wants every second's p99, and each steady window's judgement the sum of its seconds. Decoding
 * them apart decoded every steady second twice (series.ts, then the step's aggregate). Memory:
 * one number per second and one summed histogram per steady window, never one per second.
 */
import { addInto, SUM_LAYOUT } from './buckets.ts';
import { addCountsInto, countsOf, countsPercentileMs, newHistogram, type Histogram } from './histogram.ts';
import { STEPS_PHASE } from './phases.ts';
import type { AnalysedRecord } from './types.ts';

/** A steady window of the steps phase: seconds [fromS, toS). */
export interface Window {
  fromS: number;
  toS: number;
}

export interface Durations {
  /** p99 (ms) of each record's successful durations, in the records' order; null where it holds none. */
  p99Ms: (number | null)[];
  /** The summed durations of a window asked for (the same histogram aggregate() sums); undefined for another. */
  windowSum(w: Window): Histogram | undefined;
}

const key = (w: Window) => `${w.fromS}:${w.toS}`;

/** `merged`: buckets merged per phase and second (mergeRecords); `windows`: the steady windows to sum. */
export function decodeDurations(merged: readonly AnalysedRecord[], windows: readonly Window[]): Durations {
  const sums = new Map<string, { w: Window; sum: Histogram }>();
  for (const w of windows) if (!sums.has(key(w))) sums.set(key(w), { w, sum: newHistogram(SUM_LAYOUT) });
  const open = [...sums.values()];
  const p99Ms = merged.map((r) => {
    const into = r.phase === STEPS_PHASE ? open.filter(({ w }) => r.tS >= w.fromS && r.tS < w.toS) : [];
    const charted = r.ok > 0 && Boolean(r.hist.duration);
    if (!charted) {
      for (const { sum } of into) addInto(sum, r.hist.duration);
      return null;
    }
    const counts = countsOf(r.hist.duration);
    for (const { sum } of into) addCountsInto(sum, counts);
    return countsPercentileMs(counts, 99);
  });
  return { p99Ms, windowSum: (w) => sums.get(key(w))?.sum };
}
