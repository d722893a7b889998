/**
 * What a short real-load test can hold on a busy machine: every request started succeeded, and
 * every scheduled arrival was started or counted as dropped (a stall of the machine can let more
 * come due at once than the VUs), with at least `minOk` of them served.
 */
import { expect } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';

export function expectSentOrDropped(records: readonly BucketRecord[], scheduled: number, minOk: number): void {
  const sum = (k: 'ok' | 'dropped' | 'started') => records.reduce((a, r) => a + r[k], 0);
  expect(records.flatMap((r) => Object.keys(r.errors))).toEqual([]);
  expect([sum('ok'), sum('ok') + sum('dropped')]).toEqual([sum('started'), scheduled]);
  expect(sum('ok')).toBeGreaterThanOrEqual(minOk);
}
