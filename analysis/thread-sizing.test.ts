import { describe, expect, it } from 'vitest';
import type { BucketRecord } from './types.ts';
import { threadsForPlan } from './thread-sizing.ts';

/** A warmup bucket: only what the sizing reads (source, second, arrivals started, busy share). */
const rec = (source: number, tS: number, started: number, busy: number | undefined): BucketRecord => ({
  v: 1, source: `native/${source}`, tS, phase: 'warmup', started, dropped: 0, completed: started, ok: started, errors: {}, statuses: {},
  bytesIn: 0, bytesOut: 0, vusActiveMax: 1, vusAllocated: 1, lag: '', loopDelayMaxMs: 0, busy, hist: {} as BucketRecord['hist'],
});

/** Two threads, `seconds` seconds at 2,500 arrivals each, busy `busy(tS)` each, plus a cut-short last second. */
function warmup(seconds: number, busy: (tS: number) => number | undefined): BucketRecord[] {
  const out: BucketRecord[] = [];
  for (let tS = 0; tS < seconds; tS++) for (const w of [0, 1]) out.push(rec(w, tS, 2500, busy(tS)));
  for (const w of [0, 1]) out.push(rec(w, seconds, 40, 0.9));
  return out;
}

describe('threads a plan needs, from the warmup', () => {
  it('charges each warm second\'s busy time over all threads to the arrivals it started', () => {
    // 0.1 + 0.1 thread-seconds for 5,000 arrivals: 40 µs each; at 10,000/s one thread would be 40% busy
    const s = threadsForPlan(warmup(8, () => 0.1), 2, 10_000, 0.6);
    expect(s.costUs).toBeCloseTo(40, 6);
    expect(s.oneThreadBusy).toBeCloseTo(0.4, 6);
    expect(s.threads).toBe(1);
    expect(s.detail).toMatch(/40\.0 µs .* one thread 40% busy \(an estimate on the high side\), so the steps run on 1 of the 2 threads \(each under 60% busy\)/);
  });

  it('keeps every thread the top rate needs: one thread at 20,000/s would be 80% busy, over 60%', () => {
    const s = threadsForPlan(warmup(8, () => 0.1), 2, 20_000, 0.6);
    expect(s.threads).toBe(2);
    expect(s.detail).toMatch(/all 2 threads run the steps/);
    // and never more threads than ran the warmup
    expect(threadsForPlan(warmup(8, () => 0.1), 2, 1_000_000, 0.6).threads).toBe(2);
  });

  it('leaves out the ramp, the first second at rate and the second cut short, and takes the median of the latest six', () => {
    // cold seconds (0, 1) cost 10x, seconds 2..5 5x, 6..9 1x: over seconds 2..9 the median would be
    // 3x; over the latest six (4..9) it is 1x
    const busy = (tS: number) => (tS < 2 ? 1 : tS < 6 ? 0.5 : 0.1);
    const s = threadsForPlan(warmup(10, busy), 2, 10_000, 0.6);
    expect(s.seconds).toBe(6);
    expect(s.costUs).toBeCloseTo(40, 6);
    // one noisy second among six moves the median not at all
    const noisy = threadsForPlan(warmup(8, (tS) => (tS === 5 ? 0.9 : 0.1)), 2, 10_000, 0.6);
    expect(noisy.costUs).toBeCloseTo(40, 6);
  });

  it('keeps every thread when no warm second has every thread\'s busy share', () => {
    const missing = warmup(8, () => undefined);
    expect(threadsForPlan(missing, 2, 10, 0.6)).toMatchObject({ threads: 2, costUs: null });
    // a second with one thread's bucket only is not a whole second
    const half = warmup(8, () => 0.1).filter((r) => r.source === 'native/0');
    expect(threadsForPlan(half, 2, 10, 0.6).threads).toBe(2);
    expect(threadsForPlan([], 2, 10, 0.6).detail).toMatch(/no warm second .* all 2 threads/);
  });
});
