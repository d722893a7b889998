import { describe, expect, it } from 'vitest';
import { runWarnings } from './warnings.ts';
import type { Rules, StepResult } from './types.ts';

const rules = { minTailSamples: 10 } as Rules;

function step(over: Partial<StepResult>): StepResult {
  return {
    index: 0, ratePerSec: 100, steadyStartS: 0, steadyEndS: 5, steadyS: 5, throughputPerSec: 100, completedPerSec: 100, delivery: 1, capture: null,
    completed: 500, ok: 500, failed: 0, errorRate: 0, errors: {}, dropped: 0, started: 500,
    latency: [{ q: 50, valueMs: 10, n: 500, reliable: true }],
    meanMs: 10, maxMs: 20, lagP99Ms: 1, loopDelayMaxMs: 5, vusActiveMax: 3, vusAllocatedMax: 10, verdict: 'holds', reasons: [],
    ...over,
  };
}

describe('generator warnings', () => {
  it('late arrivals on a busy generator: short of CPU', () => {
    const [w] = runWarnings([step({ lagP99Ms: 15, generatorBusy: 0.75 })], rules);
    expect(w).toMatch(/^step 1 started arrivals late: scheduler lag p99 15\.0 ms > 10 ms; the generator is short of CPU/);
  });

  it('late arrivals on a mostly idle generator: stalls from outside, a machine of its own helps', () => {
    const ws = runWarnings([step({ lagP99Ms: 25, loopDelayMaxMs: 80, generatorBusy: 0.5 })], rules);
    expect(ws).toHaveLength(2);
    expect(ws[0]).toMatch(/its busiest thread was busy only 50% of the time: the delays are stalls .*; a load machine of its own helps most$/);
    expect(ws[1]).toMatch(/event-loop delay up to 80\.0 ms > 50 ms: .*; its threads were mostly idle \(busiest 50%\): stalls, not a generator short of CPU; run it on a machine of its own$/);
  });

  it('a generator thread busy over 80% of the window is close to its limit, even on schedule', () => {
    expect(runWarnings([step({ generatorBusy: 0.86 })], rules)).toEqual([
      "step 1: the generator's busiest thread was busy 86% of the steady window (> 80%): little headroom, so a higher rate may measure the generator; give it more cores or workers (--workers)",
    ]);
    expect(runWarnings([step({ generatorBusy: 0.8 }), step({ generatorBusy: null })], rules)).toEqual([]);
  });
});
