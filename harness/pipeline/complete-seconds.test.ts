import { describe, expect, it } from 'vitest';
import { buildRecords, type FakeRunSpec } from '../../analysis/testing/builders.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { CompleteSeconds } from './complete-seconds.ts';

const SPEC: FakeRunSpec = {
  steps: [{ ratePerSec: 3001, droppedPerSec: 7 }, { ratePerSec: 6000 }],
  rampS: 1,
  holdS: 3,
  settleS: 1,
};

/** Source 1's buckets arrive a second late: s0@t0, s0@t1, s1@t0, s0@t2, s1@t1, ... */
function lagging(records: BucketRecord[]): BucketRecord[] {
  const a = records.filter((r) => r.source.endsWith('0'));
  const b = records.filter((r) => !r.source.endsWith('0'));
  const out: BucketRecord[] = [a[0]];
  for (let i = 1; i < a.length; i++) out.push(a[i], b[i - 1]);
  return [...out, b[b.length - 1]];
}

describe('CompleteSeconds', () => {
  it("hands back each second once, with every instance's bucket, when its last bucket arrives", () => {
    const whole = buildRecords(SPEC);
    const split = buildRecords({ ...SPEC, sources: 2 });
    expect(new Set(split.map((r) => r.source)).size).toBe(2);
    const c = new CompleteSeconds(2);
    const shown: (readonly BucketRecord[])[] = [];
    const done: number[] = [];
    for (const r of lagging(split)) {
      const { doneS, second } = c.add(r);
      done.push(doneS);
      if (second) {
        shown.push(second);
        expect(second.map((x) => x.tS)).toEqual([doneS, doneS]);
      }
    }
    expect(done.slice(0, 3)).toEqual([-1, -1, 0]);
    // The whole second, not one worker's stripe of it (the progress line showed half the rate).
    const total = (g: readonly BucketRecord[]) => [
      g[0].tS,
      ...(['ok', 'dropped', 'completed'] as const).map((k) => g.reduce((a, r) => a + r[k], 0)),
    ];
    expect(shown.map(total)).toEqual(whole.map((s) => total([s])));
  });

  it("passes a single instance's bucket through as it is", () => {
    const c = new CompleteSeconds(1);
    const [r] = buildRecords(SPEC);
    expect(c.add(r)).toEqual({ doneS: r.tS, second: [r] });
  });

  it('forgets a second an instance skipped once every instance has passed it', () => {
    const [a0, b0, a1, b1, a2, b2] = buildRecords({ ...SPEC, sources: 2 });
    const c = new CompleteSeconds(2);
    c.add(a0);
    c.add(a1); // b0 never comes (that instance stopped early)
    c.add(b1);
    expect(c.add(a2).second).toBeNull();
    expect(c.add(b2).second).toEqual([a2, b2]);
    expect(c.add(b0)).toMatchObject({ second: null });
  });
});
