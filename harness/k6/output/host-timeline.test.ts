import { describe, expect, it } from 'vitest';
import { OpenBucket } from '../../engine/open-bucket.ts';
import type { HostSample } from '../../engine/host-sampler.ts';
import { HostTimeline } from './host-timeline.ts';

/** A timeline on a hand-moved clock whose samples are given in turn. */
function timeline(samples: HostSample[]) {
  let now = 10_000;
  const t = new HostTimeline({ sample: () => samples.shift()! }, () => now);
  return {
    t,
    at: (ms: number) => {
      now = ms;
      t.take();
    },
  };
}

const bucket = () => new OpenBucket().reset(0);

describe('HostTimeline', () => {
  it('gives a second the throttled ms pro rata, the steal and the process CPU weighted by overlap', () => {
    const { t, at } = timeline([
      { throttledMs: 100, cpuSteal: 0.02, processCpu: 0.5 },
      { throttledMs: 300, cpuSteal: 0.04, processCpu: 0.9 },
    ]);
    at(11_000);
    at(12_000);
    const b = bucket();
    t.stamp(b, 10_500, 11_500);
    expect([b.throttledMs, b.cpuSteal, b.processCpu]).toEqual([200, 0.03, 0.7]);
    const c = bucket();
    t.stamp(c, 11_500, 12_500);
    // half a second covered: its share of the throttling, the steal of what was covered
    expect([c.throttledMs, c.cpuSteal, c.processCpu]).toEqual([150, 0.04, 0.9]);
  });

  it('forgets the samples a closed second has passed, and leaves an uncovered second unread', () => {
    const { t, at } = timeline([
      { throttledMs: 50, cpuSteal: 0.1, processCpu: 0.1 },
      { throttledMs: 70, cpuSteal: 0.2, processCpu: 0.1 },
    ]);
    at(11_000);
    at(12_000);
    t.stamp(bucket(), 11_000, 12_000);
    const again = bucket();
    t.stamp(again, 10_000, 11_000);
    expect([again.throttledMs, again.cpuSteal]).toEqual([-1, -1]);
    const later = bucket();
    t.stamp(later, 13_000, 14_000);
    expect([later.throttledMs, later.cpuSteal]).toEqual([-1, -1]);
  });

  it('samples up to now where a second closes before the timer took its sample (a late timer on a busy machine; a CI failed on it)', () => {
    let now = 10_000;
    const t = new HostTimeline({ sample: () => ({ throttledMs: 40, cpuSteal: 0.05, processCpu: 0.3 }) }, () => now);
    now = 11_200; // the timer due at 11_000 has not fired
    const b = bucket();
    t.stamp(b, 10_000, 11_000);
    expect([b.throttledMs, b.cpuSteal, b.processCpu]).toEqual([33.3, 0.05, 0.3]);
  });

  it('leaves a figure the system does not give unread (no quota: no throttled ms)', () => {
    const { t, at } = timeline([{ throttledMs: null, cpuSteal: 0.01, processCpu: null }]);
    at(11_000);
    const b = bucket();
    t.stamp(b, 10_000, 11_000);
    expect([b.throttledMs, b.cpuSteal, b.processCpu]).toEqual([-1, 0.01, -1]);
  });

  it('takes nothing when the clock has not moved', () => {
    let calls = 0;
    const t = new HostTimeline(
      {
        sample: () => {
          calls++;
          return { throttledMs: 1, cpuSteal: 0, processCpu: 0 };
        },
      },
      () => 5,
    );
    t.take();
    expect(calls).toBe(0);
  });
});
