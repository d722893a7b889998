import { describe, expect, it } from 'vitest';
import type { BucketRecord } from './types.ts';
import { threadsForPlan } from './thread-sizing.ts';

/** A warmup bucket: only what the sizing reads (source, second, arrivals started, busy share). */
const rec = (source: number, tS: number, started: number, busy: number | undefined): BucketRecord => ({
  v: 1,
  source: `native/${source}`,
  tS,
  phase: 'warmup',
  started,
  dropped: 0,
  completed: started,
  ok: started,
  errors: {},
  statuses: {},
  bytesIn: 0,
  bytesOut: 0,
  vusActiveMax: 1,
  vusAllocated: 1,
  lag: '',
  loopDelayMaxMs: 0,
  busy,
  hist: {} as BucketRecord['hist'],
});

/** Two threads, `seconds` seconds at 2,500 arrivals each, busy `busy(tS)` each, plus a cut-short last second. */
function warmup(seconds: number, busy: (tS: number) => number | undefined): BucketRecord[] {
  const out: BucketRecord[] = [];
  for (let tS = 0; tS < seconds; tS++) for (const w of [0, 1]) out.push(rec(w, tS, 2500, busy(tS)));
  for (const w of [0, 1]) out.push(rec(w, seconds, 40, 0.9));
  return out;
}

describe('threads a plan needs, from the warmup', () => {
  it("charges each warm second's busy time over all threads to the arrivals it started", () => {
    // 0.1 + 0.1 thread-seconds for 5,000 arrivals: 40 µs each; at 10,000/s one thread would be 40% busy
    const s = threadsForPlan(
      warmup(8, () => 0.1),
      2,
      10_000,
      0.6,
    );
    expect(s.costUs).toBeCloseTo(40, 6);
    expect(s.oneThreadBusy).toBeCloseTo(0.4, 6);
    expect(s.threads).toBe(1);
    expect(s.detail).toMatch(
      /40\.0 µs .* one thread 40% busy \(an estimate on the high side\), so the steps run on 1 of the 2 threads \(each under 60% busy\)/,
    );
  });

  it('keeps every thread the top rate needs: one thread at 20,000/s would be 80% busy, over 60%', () => {
    const s = threadsForPlan(
      warmup(8, () => 0.1),
      2,
      20_000,
      0.6,
    );
    expect(s.threads).toBe(2);
    expect(s.detail).toMatch(/all 2 threads run the steps/);
    // and never more threads than ran the warmup
    expect(
      threadsForPlan(
        warmup(8, () => 0.1),
        2,
        1_000_000,
        0.6,
      ).threads,
    ).toBe(2);
  });

  it("leaves out the ramp, the first second at rate and each thread's cut-short last second", () => {
    // seconds 0..4 and a cut-short 5: only 2, 3 and 4 are warm
    expect(
      threadsForPlan(
        warmup(5, () => 0.1),
        2,
        10_000,
        0.6,
      ).seconds,
    ).toBe(3);
    // the threads stopped either side of a second's edge: thread 0's last bucket is second 4, so
    // second 4 is cut short too (thread 1's bucket 4 is whole, its 5 cut short)
    const straddled = warmup(5, () => 0.1).filter((r) => !(r.source === 'native/0' && r.tS === 5));
    const s = threadsForPlan(straddled, 2, 10_000, 0.6);
    expect(s.seconds).toBe(2);
    expect(s).toMatchObject({ threads: 2, costUs: null });
    expect(s.detail).toBe(
      "the warmup had 2 warm seconds with every thread's busy share, under the 3 an estimate needs: all 2 threads run the steps",
    );
  });

  it('takes the median of the latest six warm seconds', () => {
    // seconds 2..5 cost 5x, 6..9 1x: over all eight the median would be 3x; over the latest six 1x
    const s = threadsForPlan(
      warmup(10, (tS) => (tS < 6 ? 0.5 : 0.1)),
      2,
      10_000,
      0.6,
    );
    expect(s.seconds).toBe(8);
    expect(s.costUs).toBeCloseTo(40, 6);
  });

  it("judges at least the warmup's own rate: a top rate below it would charge too little of the fixed cost", () => {
    // 5,000 arrivals a second in the warmup, a plan topping at 100/s: judged at 5,000
    const s = threadsForPlan(
      warmup(8, () => 0.2),
      2,
      100,
      0.6,
    );
    expect(s.ratePerSec).toBe(5000);
    expect(s.oneThreadBusy).toBeCloseTo(0.4, 6);
    expect(s.detail).toMatch(/the warmup's rate, 5,000 req\/s \(above the top rate\), would keep one thread 40% busy/);
  });

  it("keeps every thread when no warm second has every thread's busy share", () => {
    const missing = warmup(8, () => undefined);
    expect(threadsForPlan(missing, 2, 10_000, 0.6)).toMatchObject({ threads: 2, costUs: null });
    // a second with one thread's bucket only is not a whole second
    const half = warmup(8, () => 0.1).filter((r) => r.source === 'native/0');
    expect(threadsForPlan(half, 2, 10_000, 0.6).threads).toBe(2);
    expect(threadsForPlan([], 2, 10, 0.6).detail).toMatch(/had 0 warm seconds .* all 2 threads run the steps/);
  });
});
