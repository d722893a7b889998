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
  it('says which concurrency N is: the requests in flight at the target, think time excluded, where an arrival is several requests', () => {
    expect(modelsIntro(models({ nRequests: true }), 'arrivals/s', null)).toMatch(
      /^Little's law gives the mean concurrency the target carried at each step: N is the requests in flight at the target, the sum over request names of requests\/s × mean latency, think time excluded\. X counts arrivals, so W = N \/ X is an arrival's mean time at the target: its requests' latencies, not the think time between them\. /,
    );
    // one request per arrival: as it was
    expect(modelsIntro(models(), 'req/s', null)).toMatch(
      /^Little's law gives the mean concurrency the target carried at each step \(N = X × W\)\. Utilisation/,
    );
  });

  it("where N counts arrivals (a summary analysed before, no mean per request name), it is not called the target's concurrency", () => {
    const stored = modelsIntro(models({ wPerArrival: true }), 'arrivals/s', null);
    expect(stored).toMatch(/^Little's law gives the mean number in flight at each step \(N = X × W\)\. /);
    expect(stored).toContain(
      "X counts arrivals, so W is an arrival's mean time (a transaction's whole, think time included) and N the arrivals in flight, not the requests the target held.",
    );
    expect(stored).not.toContain('the target carried');
    expect(modelsIntro(models(), 'arrivals/s', null)).toContain(
      "X counts arrivals, but W is a request's mean time (the run records no arrival's own: an imported k6 run's iterations), so N understates the arrivals in flight and is not the requests the target held.",
    );
    expect(modelsIntro(models(), 'req/s', null)).not.toContain('X counts arrivals');
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
    expect(modelsIntro(floor, 'req/s', 1)).toContain(
      'μ ≥ 40.0 req/s, the highest steady throughput reached: the run established no capacity',
    );
    expect(modelRows(floor, 1).map((r) => r.slice(5, 7))).toEqual([
      ['≤ 0.50', '≤ 2.00×'],
      ['≤ 1.00', '–'],
    ]);
    expect(modelRows(established, 1).map((r) => r.slice(5, 7))).toEqual([
      ['0.50', '2.00×'],
      ['1.00', 'ρ > 0.80'],
    ]);
  });

  it('never calls the top step held saturated, and a mean that fell is not said to have grown', () => {
    const [floorSentence] = kneeSentence(run, floor);
    expect(floorSentence).toBe(
      "At the last step held (step 2) ρ ≤ 1.00: the run established no capacity, so how near saturation it ran is not known; the measured mean was 0.93× step 1's.",
    );
    expect(kneeSentence(run, established)[0]).toMatch(
      /^Near the knee \(step 2\) ρ = 1\.00: the knee's throughput is μ itself, the highest any step reached, so 1 \/ \(1 − ρ\) has no figure there; the measured mean was 0\.93× step 1's\./,
    );
  });
});

describe('1 / (1 − ρ) near 1 and past the knee', () => {
  // the mix fixture: μ = 440.0 (step 4, past the knee), the knee (step 3) at 429.7
  const mu = 440;
  const xs = [150, 300, 429.7, 440, 419.7];
  const little = xs.map((x, i) => ({
    index: Math.min(i, 3),
    attempt: i === 4 ? 2 : 1,
    ratePerSec: [150, 300, 450, 600, 600][i],
    throughputPerSec: x,
    meanMs: [6.19, 6.57, 127, 555, 564][i],
    concurrency: 1,
  }));
  const utilisation = little.map((r, i) => ({
    index: r.index,
    attempt: r.attempt,
    rho: r.throughputPerSec / mu,
    amplification: i <= 2 ? 1 / (1 - r.throughputPerSec / mu) : null,
    latencyInflation: r.meanMs / 6.19,
  }));
  const m = models({ little, utilisation, utilisationBasePerSec: mu });
  const steps = little.map((r) => ({ index: r.index, attempt: r.attempt, verdict: r.index <= 2 ? 'holds' : 'fails' }));
  const run = { steps, kneeStep: 2 } as never;

  it('gives no figure past 0.80, where it turns on μ (42.6x here, 82x for a peak of 435), nor past the knee, and says why', () => {
    expect(modelRows(m, 2).map((r) => r.slice(5, 7))).toEqual([
      ['0.34', '1.52×'],
      ['0.68', '3.14×'],
      ['0.98', 'ρ > 0.80'],
      ['1.00', 'past the knee'],
      ['0.95', 'past the knee'],
    ]);
    const [sentence] = kneeSentence(run, m);
    expect(sentence).toBe(
      "Near the knee (step 3) ρ = 0.98, too near 1 for 1 / (1 − ρ) to be read: it turns on the 2.3% by which the knee's throughput falls short of μ (a μ 1.2% lower would double it); the measured mean was 20.52× step 1's. Latency climbs steeply as ρ nears 1, which is why capacity is read from throughput, not from a latency target.",
    );
    expect(sentence).not.toMatch(/42\.6/);
    const intro = modelsIntro(m, 'arrivals/s', 2);
    expect(intro).toContain(' Where ρ > 0.80 the table gives no 1 / (1 − ρ): μ is itself a measured throughput');
    expect(intro).toContain(' Past the knee it gives none either: the rate offered there exceeded what was served');
    // a step past the knee whose ρ reads low is past the knee all the same (it read "saturated")
    const low = models({ little, utilisation: utilisation.map((u, i) => (i === 4 ? { ...u, rho: 0.79 } : u)) });
    expect(modelRows(low, 2)[4].slice(5, 7)).toEqual(['0.79', 'past the knee']);
  });

  it('says nothing of rows it has none of, and never prints a ρ past the bound as the bound', () => {
    const below = models({ little: little.slice(0, 2), utilisation: utilisation.slice(0, 2) });
    expect(modelsIntro(below, 'arrivals/s', 2)).not.toMatch(/ρ > 0\.80|Past the knee/);
    const edge = models({
      little: little.slice(0, 1),
      utilisation: [{ ...utilisation[0], rho: 0.8049, amplification: 1 / (1 - 0.8049) }],
    });
    expect(modelRows(edge, 2)[0].slice(5, 7)).toEqual(['0.805', 'ρ > 0.80']);
    // a μ that is only a floor keeps its upper bounds
    expect(modelRows({ ...m, utilisationBaseAtLeast: true }, 2)[2].slice(5, 7)).toEqual(['≤ 0.98', '≤ 42.7×']);
  });

  it("says the figure where ρ ≤ 0.80, and drops the measured mean where it would compare step 1 with itself or the generator's delays", () => {
    const cheap = models({
      little: little.slice(0, 2),
      utilisation: utilisation.slice(0, 2),
      utilisationBasePerSec: mu,
    });
    const atTwo = { steps, kneeStep: 1 } as never;
    expect(kneeSentence(atTwo, cheap)[0]).toMatch(
      /^Near the knee \(step 2\) ρ = 0\.68: queueing would stretch time in system 3\.14×; the measured mean was 1\.06× step 1's\. /,
    );
    // the knee at step 1: its mean is step 1's
    expect(kneeSentence({ steps, kneeStep: 0 } as never, cheap)[0]).toMatch(
      /^Near the knee \(step 1\) ρ = 0\.34: queueing would stretch time in system 1\.52×\. Latency climbs/,
    );
    // the knee's latencies, or step 1's, hold the generator's own delays
    const stalled = (at: number) => ({
      steps: steps.map((s, i) => (i === at ? { ...s, loopDelayMaxMs: 83.6 } : s)),
      kneeStep: 1,
    });
    expect(kneeSentence(stalled(1) as never, cheap)[0]).not.toMatch(/measured mean/);
    expect(kneeSentence(stalled(0) as never, cheap)[0]).not.toMatch(/measured mean/);
    expect(kneeSentence(stalled(2) as never, cheap)[0]).toMatch(/measured mean/);
    // the same in a run that established no capacity
    const floor = { ...cheap, utilisationBaseAtLeast: true as const };
    expect(kneeSentence({ steps, kneeStep: 0 } as never, floor)[0]).toBe(
      'At the last step held (step 1) ρ ≤ 0.34: the run established no capacity, so how near saturation it ran is not known.',
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
