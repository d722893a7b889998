import { describe, expect, it } from 'vitest';
import { costPerRequest, SECONDS_PER_MONTH } from '../analysis/models/cost.ts';
import { littleRows } from '../analysis/models/little.ts';
import { fitUsl, uslPeakConcurrency, uslThroughput, type UslParams } from '../analysis/models/usl.ts';
import { utilisationRows } from '../analysis/models/utilisation.ts';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';

/** Deterministic +-amp relative noise (no randomness in tests). */
const wobble = (i: number, amp: number) => 1 + amp * Math.sin(i * 2.399);

describe('fitUsl', () => {
  it.each<[string, UslParams, number[], number]>([
    ['contention and coherency', { alpha: 0.05, beta: 0.001, gamma: 100 }, [1, 2, 4, 8, 16, 24, 32, 48, 64], 0],
    ['the same with 1% noise', { alpha: 0.05, beta: 0.001, gamma: 100 }, [1, 2, 4, 8, 16, 24, 32, 48, 64], 0.01],
    [
      'strong contention, weak coherency',
      { alpha: 0.2, beta: 0.0002, gamma: 250 },
      [1, 3, 6, 10, 20, 40, 80, 120],
      0.005,
    ],
    ['a database-like knee', { alpha: 0.02, beta: 0.0005, gamma: 40 }, [2, 5, 10, 20, 30, 45, 60, 90], 0.01],
  ])('recovers alpha and beta within 10%% (%s)', (_name, truth, ns, noise) => {
    const points = ns.map((n, i) => ({ concurrency: n, throughputPerSec: uslThroughput(truth, n) * wobble(i, noise) }));
    const { fit } = fitUsl(points);
    expect(fit).not.toBeNull();
    expect(Math.abs(fit!.alpha - truth.alpha) / truth.alpha).toBeLessThan(0.1);
    expect(Math.abs(fit!.beta - truth.beta) / truth.beta).toBeLessThan(0.1);
    expect(Math.abs(fit!.gamma - truth.gamma) / truth.gamma).toBeLessThan(0.05);
    expect(fit!.r2).toBeGreaterThan(0.98);
    const nStar = uslPeakConcurrency(truth)!;
    expect(fit!.nStar!).toBeCloseTo(nStar, -1);
    expect(Math.abs(fit!.peakPerSec! - uslThroughput(truth, nStar)) / uslThroughput(truth, nStar)).toBeLessThan(0.05);
  });

  it('says when its peak lies past every N it was fitted to (summary.json: maxN, extrapolated)', () => {
    const truth = { alpha: 0.05, beta: 0.001, gamma: 100 }; // N* = 30.8
    const fitTo = (ns: number[]) =>
      fitUsl(ns.map((n, i) => ({ concurrency: n, throughputPerSec: uslThroughput(truth, n) * wobble(i, 0.005) }))).fit!;
    const spanning = fitTo([1, 4, 8, 16, 32, 48, 64]);
    expect(spanning).toMatchObject({ maxN: 64, extrapolated: false });
    const short = fitTo([1, 2, 4, 8, 12, 16]);
    expect(short.nStar!).toBeGreaterThan(16);
    expect(short).toMatchObject({ maxN: 16, extrapolated: true });
  });

  it('says why it does not fit too few points', () => {
    const { fit, note } = fitUsl([
      { concurrency: 1, throughputPerSec: 10 },
      { concurrency: 2, throughputPerSec: 19 },
    ]);
    expect(fit).toBeNull();
    expect(note).toMatch(/at least 4 steps/);
  });

  it('has no N* for linear scaling (beta = 0)', () => {
    const points = [1, 2, 4, 8, 16].map((n) => ({ concurrency: n, throughputPerSec: 50 * n }));
    const { fit } = fitUsl(points);
    expect(fit!.alpha).toBeLessThan(1e-3);
    expect(fit!.beta).toBeLessThan(1e-5);
    expect(fit!.r2).toBeGreaterThan(0.999);
  });
});

describe("Little's law and utilisation", () => {
  const run = fakeRun({
    steps: [100, 200, 300, 400, 450].map((ratePerSec, i) => ({
      ratePerSec,
      okPerSec: [100, 200, 300, 400, 405][i],
      latencyMs: [10, 10, 12, 20, 60][i],
    })),
  });

  it('N = X x W per step', () => {
    for (const r of littleRows(run.steps)) expect(r.concurrency).toBeCloseTo((r.throughputPerSec * r.meanMs) / 1000, 9);
    expect(run.models!.little).toHaveLength(5);
  });

  it('rho against the saturation throughput, amplification 1 / (1 - rho) up to the knee only', () => {
    const rows = utilisationRows(run.models!.little, 500, 2);
    expect(rows[0].rho).toBeCloseTo(0.2, 6);
    expect(rows[0].amplification).toBeCloseTo(1.25, 6);
    expect(rows[2].amplification).toBeCloseTo(2.5, 6);
    expect(rows[3].amplification).toBeNull();
    expect(rows[0].latencyInflation).toBe(1);
    expect(utilisationRows(run.models!.little, null, 2)).toEqual([]);
  });
});

describe('costPerRequest', () => {
  // a plateau at 300 (400 offered, 310 achieved): the capacity a fixed price is spread over
  const base = fakeRun({
    steps: [...[100, 200, 300].map((ratePerSec) => ({ ratePerSec })), { ratePerSec: 400, okPerSec: 310 }],
  });
  const knee = base.steps[2];
  const run: RunResult = {
    ...base,
    gauges: [
      {
        name: 'cpu_seconds_per_sec',
        points: [
          { tS: knee.steadyStartS + 1, value: 1.5 },
          { tS: knee.steadyStartS + 2, value: 1.5 },
        ],
      },
    ],
  };

  it('fixed: monthly cost / (capacity x seconds in a month); usage: units/s / X x unit price', () => {
    const c = costPerRequest(run, {
      monthlyCost: 730,
      usageSeries: 'cpu_seconds_per_sec',
      unitPrice: 0.00004,
      currency: 'USD',
    });
    expect(c.fixedPerRequest).toBeCloseTo(730 / (300 * SECONDS_PER_MONTH), 15);
    expect(c.unitsPerRequest).toBeCloseTo(1.5 / 300, 12);
    expect(c.usagePerRequest).toBeCloseTo((1.5 / 300) * 0.00004, 15);
    expect(c.notes).toEqual([]);
  });

  it('names what is missing', () => {
    const c = costPerRequest(base, { usageSeries: 'nope', unitPrice: 1 });
    expect(c.usagePerRequest).toBeNull();
    expect(c.notes[0]).toMatch(/no gauge series "nope"/);
  });
});
