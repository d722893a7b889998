import { describe, expect, it } from 'vitest';
import { fakeRun } from '../testing/builders.ts';
import { modelsOf } from './index.ts';
import { littleRows } from './little.ts';
import { fitUsl, uslFitRows, uslThroughput } from './usl.ts';

/**
 * A demo-like queue: 4 slots x 10 ms = 400 req/s. Up to the knee (step 8, 400/s) latency stays
 * near 10 ms; past it arrivals queue and W reaches a second, so N = X x W reads ~400.
 */
const DEMO = fakeRun({
  steps: [50, 100, 150, 200, 250, 300, 350, 400, 450, 450].map((ratePerSec, i) => ({
    ratePerSec,
    okPerSec: Math.min(ratePerSec, 400),
    latencyMs: i < 7 ? 10 : i === 7 ? 16 : 950,
  })),
  holdS: 10,
  settleS: 2,
});

describe('the USL is fitted to the steps up to and including the knee', () => {
  it('leaves out the steps past the knee, whose N counts a queue', () => {
    expect(DEMO.kneeStep).toBe(7);
    const m = DEMO.models!;
    expect(m.little.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(m.little[8].concurrency).toBeGreaterThan(300);
    expect(m.usl!.points).toBe(8);
    expect(m.uslNote).toBe("fitted to 8 steps up to and including the knee (step 8; N from Little's law)");
  });

  it('so its predicted peak is near the throughput measured, where a fit of every step overshoots it', () => {
    const m = DEMO.models!;
    const all = fitUsl(m.little.map((r) => ({ concurrency: r.concurrency, throughputPerSec: r.throughputPerSec })));
    // every step: the queue's N stretches the curve into a peak no step reached
    expect(all.fit!.peakPerSec! / 400).toBeGreaterThan(1.15);
    // up to the knee: the curve through the measured points, at the knee's N within 5% of 400
    const knee = m.little[7];
    expect(Math.abs(uslThroughput(m.usl!, knee.concurrency) - 400) / 400).toBeLessThan(0.05);
  });

  it('leaves out the steps whose generator stalled (their mean holds the stalls), and says which; the table keeps them', () => {
    const stalled = DEMO.steps.map((s) => (s.index === 2 || s.index === 3 ? { ...s, loopDelayMaxMs: 72.9 } : s));
    const m = modelsOf(stalled, 400, 7, 400);
    expect(m.usl!.points).toBe(6);
    // the note stays one clause; what was left out, and why, is a sentence of its own
    expect(m.uslNote).toBe("fitted to 6 steps up to and including the knee (step 8; N from Little's law)");
    expect(m.uslLeftOut).toBe(
      "Steps 3 and 4 are left out of the fit, the generator's own delays being in their mean and N: the event loop of steps 3 and 4 stalled up to 72.9 ms, past the 50 ms from which its stalls show in the latencies compared, though within the verdict's bound, which asks only whether the rate was served: their verdicts and throughput stand.",
    );
    // too few left to fit: the note's count reads as the end of its own sentence
    expect(modelsOf(stalled, 400, 3, 400)).toMatchObject({
      uslNote:
        "not fitted: needs at least 4 steps up to and including the knee (step 4; N from Little's law) with throughput and latency, has 2",
      uslLeftOut: expect.stringMatching(/^Steps 3 and 4 are left out of the fit/),
    });
    expect(m.little).toHaveLength(10);
    // a stall past the knee changes nothing: those steps are not fitted anyway
    const late = DEMO.steps.map((s) => (s.index === 8 ? { ...s, loopDelayMaxMs: 72.9 } : s));
    expect(modelsOf(late, 400, 7, 400).uslNote).toBe(
      "fitted to 8 steps up to and including the knee (step 8; N from Little's law)",
    );
    expect(modelsOf(late, 400, 7, 400).uslLeftOut).toBeUndefined();
  });

  it('uslFitRows: the rows at or below the knee, none without one', () => {
    const rows = littleRows(DEMO.steps);
    expect(uslFitRows(rows, 2).map((r) => r.index)).toEqual([0, 1, 2]);
    expect(uslFitRows(rows, null)).toEqual([]);
  });

  it('says why it is not fitted: no knee, or too few steps up to it', () => {
    expect(modelsOf(DEMO.steps, null, null, 400)).toMatchObject({
      usl: null,
      uslNote: 'not fitted: no step held, so there is no knee to fit up to',
    });
    expect(modelsOf(DEMO.steps, 150, 2, 400)).toMatchObject({
      usl: null,
      uslNote:
        "not fitted: needs at least 4 steps up to and including the knee (step 3; N from Little's law) with throughput and latency, has 3",
    });
    // the rows for the table are every step's still
    expect(modelsOf(DEMO.steps, 150, 2, 400).little).toHaveLength(10);
  });

  it('marks μ a floor when no step failed at the target past the knee (the capacity not established)', () => {
    expect(modelsOf(DEMO.steps, 150, 2, 400).utilisationBaseAtLeast).toBeUndefined();
    expect(modelsOf(DEMO.steps, 150, 2, 400, [], false)).toMatchObject({
      utilisationBasePerSec: 400,
      utilisationBaseAtLeast: true,
    });
    // no step held: no μ, nothing to mark
    expect(modelsOf(DEMO.steps, null, null, 400, [], false).utilisationBaseAtLeast).toBeUndefined();
  });
});

describe('a predicted peak no step lies near', () => {
  const law = { alpha: 0.05, beta: 0.004, gamma: 60 };
  const at = (ns: number[]) => ns.map((n) => ({ concurrency: n, throughputPerSec: uslThroughput(law, n) }));

  it('is marked when N* falls in a gap between the steps (none within 2x of it)', () => {
    const { fit } = fitUsl(at([1, 2, 3, 4, 56]));
    expect(fit?.nStar).toBeCloseTo(Math.sqrt(0.95 / 0.004), 0);
    expect(fit).toMatchObject({ extrapolated: true, gapN: [4, 56] });
  });

  it('is not when a step lies near N*', () => {
    const { fit } = fitUsl(at([1, 2, 4, 8, 12, 20, 56]));
    expect(fit?.extrapolated).toBe(false);
    expect(fit?.gapN).toBeUndefined();
  });
});
