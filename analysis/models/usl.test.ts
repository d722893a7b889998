import { describe, expect, it } from 'vitest';
import { fakeRun, stepResult } from '../testing/builders.ts';
import type { LittleRow, NameResult } from '../types.ts';
import { modelsIntro, uslSentences } from '../../reports/models-text.ts';
import { modelsOf } from './index.ts';
import { littleRows } from './little.ts';
import { fitUsl, PEAK_X_FACTOR, queuedOver, uslFitRows, uslQueuedRows, uslThroughput } from './usl.ts';

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
    expect(uslThroughput(all.fit!, all.fit!.nStar!) / 400).toBeGreaterThan(1.15);
    // up to the knee: the curve through the measured points, at the knee's N within 5% of 400
    const knee = m.little[7];
    expect(Math.abs(uslThroughput(m.usl!, knee.concurrency) - 400) / 400).toBeLessThan(0.05);
  });

  it('leaves out the steps whose generator stalled (their mean holds the stalls), and says which; the table keeps them', () => {
    const stalled = DEMO.steps.map((s) => (s.index === 2 || s.index === 3 ? { ...s, loopDelayMaxMs: 72.9 } : s));
    const m = modelsOf(stalled, 400, 7, 400);
    expect(m.usl!.points).toBe(6);
    // the note stays one clause, naming the steps fitted; what was left out, and why, is a sentence of its own
    expect(m.uslNote).toBe(
      "fitted to 6 steps (1, 2 and 5-8) of those up to and including the knee (step 8; N from Little's law)",
    );
    expect(m.uslLeftOut).toBe(
      "Steps 3 and 4 are left out of the fit, the generator's own delays being in their mean and N: the event loop of steps 3 and 4 stalled up to 72.9 ms, past the 50 ms from which its stalls show in the latencies compared, though within the verdict's bound, which asks only whether the rate was served: their verdicts and throughput stand.",
    );
    // too few left to fit: the note's count reads as the end of its own sentence
    expect(modelsOf(stalled, 400, 3, 400)).toMatchObject({
      uslNote:
        "not fitted: needs at least 4 steps (1 and 2) of those up to and including the knee (step 4; N from Little's law) with throughput and latency, has 2",
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

/**
 * A user's run (r1): every planned step held, no knee; its last step queued, N 73.6 against 1.74 the
 * step before on 1.22x the throughput. Fitted with it, the curve peaked at 1,772.4 arrivals/s, 3x
 * the 580.3 measured.
 */
const R1 = {
  throughputPerSec: [100, 225.33, 350, 475.67, 580.33],
  meanMs: [4.837, 3.96, 3.645, 3.657, 126.88],
};
const r1Rows = (): LittleRow[] =>
  R1.throughputPerSec.map((x, index) => ({
    index,
    ratePerSec: [100, 225, 350, 475, 600][index],
    throughputPerSec: x,
    meanMs: R1.meanMs[index],
    concurrency: (x * R1.meanMs[index]) / 1000,
  }));
const r1Points = () => r1Rows().map((r) => ({ concurrency: r.concurrency, throughputPerSec: r.throughputPerSec }));

describe('a held step whose N jumped like a queue is left out of the fit, as the steps past a knee are', () => {
  it("leaves out r1's step 5 (N 73.6 against 1.74, W 127 ms against 3.66 ms) and the steps after it", () => {
    const rows = r1Rows();
    expect(rows[4].concurrency).toBeCloseTo(73.6, 1);
    expect(uslQueuedRows(rows, 4).map((r) => r.index)).toEqual([4]);
    expect(uslFitRows(rows, 4).map((r) => r.index)).toEqual([0, 1, 2, 3]);
    // a queue once formed stays: a step after it is left out with it, even with W level again
    const later = [...rows.slice(0, 4), { ...rows[4], index: 4 }, { ...rows[4], index: 5, meanMs: 130 }];
    expect(uslFitRows(later, 5).map((r) => r.index)).toEqual([0, 1, 2, 3]);
    // up to an earlier knee the queue is not reached: nothing is left out for it
    expect(uslQueuedRows(rows, 3)).toEqual([]);
  });

  it('keeps a knee whose W rose less than 4x, and a fast target whose sub-ms mean rose 5x by less than 5 ms', () => {
    // the demo's knee: 10 ms to 16 ms
    expect(uslQueuedRows(DEMO.models!.little, 7)).toEqual([]);
    const prev = { ...r1Rows()[3], meanMs: 0.4 };
    expect(queuedOver(prev, { ...prev, index: 4, meanMs: 2 })).toBe(false);
    expect(queuedOver(prev, { ...prev, index: 4, meanMs: 5.5 })).toBe(true);
    expect(queuedOver(r1Rows()[3], { ...r1Rows()[3], index: 4, meanMs: 3.657 * 3.9 })).toBe(false);
  });

  it('fitted to steps 1-4 the law predicts no peak, and says the steps show no limit (not that throughput levels off)', () => {
    const { fit } = fitUsl(r1Points().slice(0, 4));
    expect(fit).toMatchObject({ alpha: 0, beta: 0, nStar: null, peakPerSec: null, points: 4 });
    const text = uslSentences(fit, 'fitted to 4 steps', { maxN: 1.74, maxX: 475.67 }, 'arrivals/s')[0];
    expect(text).toContain(
      "no peak: the fitted steps' throughput rose in proportion to N (α ≈ 0, β ≈ 0), so they show no limit and the law predicts none",
    );
    expect(text).not.toContain('levels off');
  });

  it('the section names the step left out and why, and the note the steps fitted, of those up to the last one held', () => {
    const steps = r1Rows().map((r) =>
      stepResult({
        index: r.index,
        ratePerSec: r.ratePerSec,
        throughputPerSec: r.throughputPerSec,
        meanMs: r.meanMs,
      }),
    );
    const m = modelsOf(steps, null, 4, 580.33, [], false);
    expect(m.usl).toMatchObject({ points: 4, peakPerSec: null });
    expect(m.uslNote).toBe(
      "fitted to 4 steps (1-4) of those up to and including the last one held (step 5; N from Little's law)",
    );
    expect(m.uslLeftOut).toBe(
      "Step 5 is left out of the fit as a queue: its N of 73.6 is 42.3× step 4's 1.74 on 1.22× the throughput (mean W 127 ms against 3.66 ms): requests waited there, so N counts them waiting, not concurrency the target served, as past a knee it does.",
    );
    const text = uslSentences(m.usl, m.uslNote, { maxN: 1.74, maxX: 475.67 }, 'arrivals/s', m.uslLeftOut).join(' ');
    expect(text).not.toContain('predicted peak');
  });
});

describe('a predicted peak no step lies near', () => {
  it('is not given where it lies more than 1.5x past the highest throughput fitted (r1 fitted with its queue: 1,772.4 where 580.3 was measured)', () => {
    const { fit } = fitUsl(r1Points());
    expect(fit!.nStar).toBeCloseTo(12.65, 1);
    expect(uslThroughput(fit!, fit!.nStar!)).toBeGreaterThan(PEAK_X_FACTOR * 580.33);
    expect(fit).toMatchObject({ peakPerSec: null, peakFar: true, gapN: [expect.any(Number), expect.any(Number)] });
    const text = uslSentences(fit, 'fitted to 5 steps', { maxN: 73.6, maxX: 580.33 }, 'arrivals/s')[0];
    expect(text).toContain(
      'N* = √((1 − α) / β) = 12.7, where X(N*) would be 3.05× the highest throughput a fitted step measured (580.3 arrivals/s): no peak is predicted, no step having come near it;',
    );
    expect(text).not.toContain('1,772');
  });

  const law = { alpha: 0.05, beta: 0.004, gamma: 60 };
  const at = (ns: number[]) => ns.map((n) => ({ concurrency: n, throughputPerSec: uslThroughput(law, n) }));

  it('is marked when N* falls in a gap between the steps (none within 2x of it)', () => {
    const { fit } = fitUsl(at([1, 2, 3, 4, 56]));
    expect(fit?.nStar).toBeCloseTo(Math.sqrt(0.95 / 0.004), 0);
    expect(fit).toMatchObject({ extrapolated: true, gapN: [4, 56] });
  });

  it('is not predicted at all when N* lies more than 2x past the largest N fitted (the curve there rests on no step)', () => {
    // N* = 15.4, the steps up to N = 4: two runs of one target read peaks 1.6x apart so far out
    const { fit } = fitUsl(at([1, 2, 3, 4]));
    expect(fit?.nStar).toBeCloseTo(Math.sqrt(0.95 / 0.004), 0);
    expect(fit).toMatchObject({ extrapolated: true, nStarFar: true, peakPerSec: null, maxN: 4 });
    // within 2x of the largest N: predicted, and marked an extrapolation
    const near = fitUsl(at([1, 2, 4, 6, 8])).fit!;
    expect(near.nStar! / 8).toBeLessThan(2);
    expect(near).toMatchObject({ extrapolated: true });
    expect(near.nStarFar).toBeUndefined();
    expect(near.peakPerSec).toBeCloseTo(uslThroughput(law, Math.sqrt(0.95 / 0.004)), 1);
    expect(uslSentences(fit, 'fitted to 4 steps', { maxN: 4 }, 'arrivals/s')[0]).toContain(
      'N* = √((1 − α) / β) = 15.4, more than 2× the largest N fitted (4.00): no peak is predicted, the curve there resting on no step; R² = 1.000.',
    );
  });

  it('is not when a step lies near N*', () => {
    const { fit } = fitUsl(at([1, 2, 4, 8, 12, 20, 56]));
    expect(fit?.extrapolated).toBe(false);
    expect(fit?.gapN).toBeUndefined();
  });
});

describe('an arrival of several requests: the USL is fitted to the requests in flight at the target', () => {
  // 4 slots x 20 ms = 200 req/s; each arrival a transaction of two requests and 500 ms of think time
  // between them: 100 arrivals/s. The requests queue near the knee (step 5).
  const xs = [20, 40, 60, 80, 98, 100];
  const requestMs = [20, 20, 21, 24, 40, 600];
  const steps = xs.map((x, index) =>
    stepResult({
      index,
      ratePerSec: 20 * (index + 1),
      throughputPerSec: x,
      steadyS: 10,
      meanMs: requestMs[index],
      verdict: index < 5 ? 'holds' : 'fails',
      byName: {
        session: {
          transaction: true,
          ok: x * 10,
          throughputPerSec: x,
          meanMs: 2 * requestMs[index] + 500,
        } as NameResult,
        'session: login': { ok: x * 10, throughputPerSec: x, meanMs: requestMs[index] } as NameResult,
        'session: order': { ok: x * 10, throughputPerSec: x, meanMs: requestMs[index] } as NameResult,
      },
    }),
  );

  it('N = the requests/s x request latency summed over the names, think time excluded, and the section says so', () => {
    const m = modelsOf(steps, 98, 4, 100, ['session'], true, true);
    expect(m.nRequests).toBe(true);
    expect(m.wPerArrival).toBeUndefined();
    expect(m.little.map((r) => Number(r.concurrency.toFixed(3)))).toEqual([0.8, 1.6, 2.52, 3.84, 7.84, 120]);
    // W / W₁ reads the requests' latency rise (2x at the knee), not one diluted by the think time (1.08x)
    expect(m.utilisation[4].latencyInflation).toBeCloseTo(2, 9);
    // the fit rests on N of a few requests: its peak, if it has one, is no double of the 100 arrivals/s reached
    expect(m.usl!.maxN).toBeCloseTo(7.84, 9);
    expect(m.usl!.peakPerSec ?? 0).toBeLessThan(115);
    expect(modelsIntro(m, 'arrivals/s', 4)).toContain(
      'N is the requests in flight at the target, the sum over request names of requests/s × mean latency, think time excluded',
    );
  });

  it("where the arrivals' own time were taken (the VUs asleep counted), N is tens and the peak runs far past the 100 reached", () => {
    const m = modelsOf(steps, 98, 4, 100, ['session']);
    expect(m.little[0].concurrency).toBeCloseTo(10.8, 9);
    expect(m.usl!.peakPerSec ?? Infinity).toBeGreaterThan(150);
  });

  it('withholds the fit, saying why, where a step records no mean per request name (an import without names)', () => {
    const unnamed = steps.map((s) => (s.index === 2 ? { ...s, byName: undefined } : s));
    const m = modelsOf(unnamed, 98, 4, 100, [], true, true);
    expect(m.usl).toBeNull();
    expect(m.nRequests).toBeUndefined();
    expect(m.uslNote).toBe(
      "not fitted: an arrival here is several requests, and step 3 records no mean latency per request name, so the requests in flight at the target cannot be had; N from the arrivals' own time counts arrivals in flight (think time and all), not the target's concurrency",
    );
    // the table keeps every step, N from the arrivals' time, and says it is no concurrency of the target's
    expect(m.little).toHaveLength(6);
    expect(modelsIntro(m, 'arrivals/s', 4)).toMatch(/^Little's law gives the mean number in flight at each step/);
  });
});
