import { describe, expect, it } from 'vitest';
import type { Models } from '../analysis/types.ts';
import { kneeSentence, modelRows, modelsIntro, uslSentences } from './models-text.ts';

const models = (over: Partial<Models> = {}): Models => ({
  little: [],
  usl: null,
  uslNote: 'not fitted',
  utilisationBasePerSec: 400,
  utilisation: [],
  ...over,
});

describe("the models section's introduction", () => {
  it("says what W is: an arrival's time in a mix, a request's where no arrival's time was recorded (a k6 import)", () => {
    expect(modelsIntro(models({ wPerArrival: true }), 'arrivals/s')).toContain(
      "X counts arrivals, so W is an arrival's mean time (a transaction's whole, think time included)",
    );
    expect(modelsIntro(models(), 'arrivals/s')).toContain(
      "X counts arrivals, but W is a request's mean time (the run records no arrival's own: an imported k6 run's iterations), so N understates the arrivals in flight.",
    );
    expect(modelsIntro(models(), 'req/s')).not.toContain('X counts arrivals');
  });
});

describe('a μ that is only a floor (no step failed at the target)', () => {
  const little = [
    { index: 0, ratePerSec: 20, throughputPerSec: 20, meanMs: 10, concurrency: 0.2 },
    { index: 1, ratePerSec: 40, throughputPerSec: 40, meanMs: 9.3, concurrency: 0.37 },
  ];
  const utilisation = [
    { index: 0, attempt: 1, rho: 0.5, amplification: 2, latencyInflation: 1 },
    { index: 1, attempt: 1, rho: 1, amplification: null, latencyInflation: 0.93 },
  ];
  const run = { steps: [{ index: 1, attempt: 1, verdict: 'holds' }], kneeStep: 1 } as never;
  const established = models({ little, utilisation, utilisationBasePerSec: 40 });
  const floor = models({ little, utilisation, utilisationBasePerSec: 40, utilisationBaseAtLeast: true });

  it('says μ is at least the top throughput, and ρ and 1 / (1 − ρ) at most', () => {
    expect(modelsIntro(floor)).toContain(
      'μ ≥ 40.0 req/s, the highest steady throughput reached: the run established no capacity',
    );
    expect(modelRows(floor).map((r) => r.slice(5, 7))).toEqual([
      ['≤ 0.50', '≤ 2.00×'],
      ['≤ 1.00', '–'],
    ]);
    expect(modelRows(established).map((r) => r.slice(5, 7))).toEqual([
      ['0.50', '2.00×'],
      ['1.00', 'saturated'],
    ]);
  });

  it('never calls the top step held saturated, and a mean that fell is not said to have grown', () => {
    const [floorSentence] = kneeSentence(run, floor);
    expect(floorSentence).toBe(
      "At the last step held (step 2) ρ ≤ 1.00: the run established no capacity, so how near saturation it ran is not known; the measured mean was 0.93× step 1's.",
    );
    expect(kneeSentence(run, established)[0]).toMatch(
      /^Near the knee \(step 2\) ρ = 1\.00: the queue is saturated; the measured mean was 0\.93× step 1's\./,
    );
  });
});

describe('the USL sentence of a peak in a gap', () => {
  it('says the curve crosses a gap, not a step', () => {
    const fit = {
      alpha: 0.05,
      beta: 0.004,
      gamma: 60,
      nStar: 15.4,
      peakPerSec: 437.9,
      maxN: 56.2,
      extrapolated: true,
      gapN: [3.86, 56.2] as [number, number],
      r2: 0.998,
      points: 6,
    };
    expect(uslSentences(fit, 'fitted to 6 steps', { maxN: 56.2 }, 'arrivals/s')[0]).toContain(
      'predicted peak X(N*) = 437.9 arrivals/s (between the measured N = 3.86 and 56.2, no step within 2× of it: the curve crosses a gap, not a step',
    );
  });
});

describe('the USL sentence of a peak below a measured step', () => {
  const fit = {
    alpha: 0.02,
    beta: 0.0004,
    gamma: 40,
    nStar: 49,
    peakPerSec: 525.9,
    maxN: 60,
    extrapolated: false,
    r2: 0.97,
    points: 8,
  };
  it('says the measured figure stands when a fitted step measured more than the curve peaks at', () => {
    const out = uslSentences(fit, 'fitted to 8 steps', { maxN: 60, maxX: 552.2 }, 'req/s');
    expect(out[1]).toBe(
      "The predicted peak lies below the 552.2 req/s a fitted step measured: the curve smooths the steps' noise and underestimates there, so the measured figure stands, not the fit's peak.",
    );
  });
  it.each([
    ['no fitted step measured more', 510],
    ['the fitted span is not known', null],
  ])('says nothing of it when %s', (_, maxX) => {
    const out = uslSentences(fit, 'fitted to 8 steps', { maxN: 60, maxX }, 'req/s');
    expect(out.join(' ')).not.toContain('lies below');
  });
});

describe('the steps left out of the USL fit', () => {
  const leftOut =
    "Steps 1 and 2 are left out of the fit, the generator's own delays being in their mean and N: step 2 held generator-limited.";
  it('are a sentence of their own, after the note, fitted or not', () => {
    expect(
      uslSentences(
        null,
        'not fitted: needs at least 4 steps with throughput and latency, has 1',
        { maxN: null },
        'req/s',
        leftOut,
      ),
    ).toEqual([
      'Universal Scalability Law: not fitted: needs at least 4 steps with throughput and latency, has 1.',
      leftOut,
    ]);
    const fit = {
      alpha: 0.01,
      beta: 0.0001,
      gamma: 100,
      nStar: 99,
      peakPerSec: 5000,
      maxN: 60,
      extrapolated: true,
      r2: 0.99,
      points: 6,
    };
    const out = uslSentences(fit, 'fitted to 6 steps', { maxN: 60 }, 'req/s', leftOut);
    expect(out[0]).toMatch(/^Universal Scalability Law X\(N\) = .*, fitted to 6 steps: α = /);
    expect(out[1]).toBe(leftOut);
  });
});
