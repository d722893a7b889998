/**
 * A rise in pieces of other slopes (k6 stages ramping on with no hold between them): fitted,
 * said to be a ramp, and never judged as steps. Two slopes had been fitted a staircase whose holds
 * the run never had: 0 to 100/s then to 400/s over 20 s each read "has holds 96/s at 19-21 s,
 * 386/s at 39-41 s", and a 2 h breakpoint run of two slopes was judged as 2 steps of 14 s holds.
 * Synthetic series, seeded.
 */
import { describe, expect, it } from 'vitest';
import { bentLine, fitBends, MIN_PIECE_S } from './ramp-slopes.ts';
import { deriveSteps } from './derive-steps.ts';

type Segment = [seconds: number, from: number, to: number];

/**
 * Arrivals due per second of linear segments starting `shiftS` into second 0; with `whole`, each
 * arrival's second as whole-second timestamps leave it (an iteration of 5 to 205 ms stamped by the
 * second it ended in, its start then placed anywhere in the second before): an approximation of
 * the ingest's blur, noisier than k6's.
 */
function series(segs: Segment[], shiftS: number, whole: boolean, rnd: () => number): number[] {
  const out: number[] = [];
  let t = 0;
  let due = 0;
  for (const [d, a, b] of segs) {
    for (let i = 0; i < d * 100; i++) {
      due += (a + ((b - a) * (i + 0.5)) / (d * 100)) / 100;
      for (; due >= 1; due--) {
        let tau = t + (i + 0.5) / 100 + shiftS;
        if (whole) {
          const dur = 0.005 + rnd() * 0.2;
          tau = Math.floor(tau + dur) - dur + rnd();
        }
        const s = Math.floor(Math.max(0, tau));
        while (out.length <= s) out.push(0);
        out[s]++;
      }
    }
    t += d;
  }
  return out;
}

function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('the line bent once or twice', () => {
  it('is recovered exactly from a bent line, its bend to a tenth of a second', () => {
    const ys = Array.from({ length: 60 }, (_, i) => 10 + 2 * i + 5 * Math.max(0, i - 20.3));
    const f = fitBends(ys, [20.3])!;
    expect(f.sse).toBeLessThan(1e-6);
    expect(f.slopes.map((s) => +s.toFixed(6))).toEqual([2, 7]);
    const found = bentLine(ys, 1)!;
    expect(found.bends[0]).toBeCloseTo(20.3, 6);
    const two = Array.from({ length: 90 }, (_, i) => 3 * i + 4 * Math.max(0, i - 30) - 6 * Math.max(0, i - 61.5));
    expect(bentLine(two, 2)!.bends.map((b) => +b.toFixed(1))).toEqual([30, 61.5]);
    // no room for a piece of MIN_PIECE_S on both sides
    expect(bentLine(ys.slice(0, 19), 1)).toBeNull();
  });
});

/**
 * The reference: least squares of the same model on its explicit design matrix (1, i, and a hinge
 * max(0, i - k) a bend), by modified Gram-Schmidt QR; null where a column is a combination of the others.
 */
function reference(ys: readonly number[], bends: readonly number[]): { at(i: number): number; sse: number } | null {
  const n = ys.length;
  const q = [ys.map(() => 1), ys.map((_, i) => i), ...bends.map((k) => ys.map((_, i) => Math.max(0, i - k)))];
  const p = q.length;
  const r = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, v, i) => sum + v * b[i], 0);
  for (let j = 0; j < p; j++) {
    for (let k = 0; k < j; k++) {
      r[k][j] = dot(q[k], q[j]);
      for (let i = 0; i < n; i++) q[j][i] -= r[k][j] * q[k][i];
    }
    r[j][j] = Math.sqrt(dot(q[j], q[j]));
    if (r[j][j] < 1e-9) return null;
    for (let i = 0; i < n; i++) q[j][i] /= r[j][j];
  }
  const b = new Array<number>(p).fill(0);
  for (let j = p - 1; j >= 0; j--) {
    let v = dot(q[j], ys);
    for (let k = j + 1; k < p; k++) v -= r[j][k] * b[k];
    b[j] = v / r[j][j];
  }
  const at = (i: number) => bends.reduce((v, k, j) => v + b[2 + j] * Math.max(0, i - k), b[0] + b[1] * i);
  return { at, sse: ys.reduce((sum, y, i) => sum + (y - at(i)) ** 2, 0) };
}

describe('the least squares from suffix sums', () => {
  // noisy series of 21 s to 2 h, rates of 1 to 5,000/s, bent or straight, bends anywhere at a tenth
  it.each(Array.from({ length: 40 }, (_, seed) => [seed]))(
    'fits as the explicit design matrix does (seed %i)',
    (seed) => {
      const rnd = seeded(seed + 1);
      const n = 21 + Math.floor(rnd() * (seed % 8 === 0 ? 7200 : 400));
      const scale = [1, 100, 5000][seed % 3];
      const bend = rnd() * n;
      const ys = Array.from(
        { length: n },
        (_, i) => scale * (rnd() + (3 * i) / n) + (seed % 2) * 20 * Math.max(0, i - bend),
      );
      const k1 = 10 + Math.round(rnd() * (n - 21) * 10) / 10;
      const bendsOf = [
        [k1],
        k1 + 10 <= n - 11 ? [k1, k1 + 10 + Math.round(rnd() * (n - 11 - k1 - 10) * 10) / 10] : [k1],
      ];
      for (const bends of bendsOf) {
        const got = fitBends(ys, bends)!;
        const want = reference(ys, bends)!;
        const range = scale * 4 + 20 * n;
        const worst = Math.max(...ys.map((_, i) => Math.abs(got.at(i) - want.at(i))));
        expect(worst / range).toBeLessThan(1e-9);
        expect(Math.abs(got.sse - want.sse)).toBeLessThanOrEqual(1e-9 * Math.max(1, want.sse));
        expect(got.slopes[0]).toBeCloseTo(want.at(1) - want.at(0), 6);
      }
    },
  );

  it('leaves every piece MIN_PIECE_S seconds or more, the last as the first (its seconds end at n - 1)', () => {
    const rise = (n: number) => Array.from({ length: n }, (_, i) => (i < n - 9 ? i : n - 9 + 5 * (i - n + 9)));
    expect(bentLine(rise(20), 1)).toBeNull();
    expect(bentLine(rise(21), 1)!.bends).toEqual([10]);
    expect(bentLine(rise(30), 2)).toBeNull();
    const rnd = seeded(99);
    for (let t = 0; t < 30; t++) {
      const n = 21 + Math.floor(rnd() * 80);
      const ys = Array.from({ length: n }, () => rnd() * 100);
      for (const count of [1, 2] as const) {
        const edges = [0, ...(bentLine(ys, count)?.bends ?? []), n - 1];
        for (let j = 1; j < edges.length; j++)
          expect(edges[j] - edges[j - 1]).toBeGreaterThanOrEqual(MIN_PIECE_S - 1e-9);
      }
    }
  });

  it('a series with no room for its bends, or one flat throughout, is no error', () => {
    expect(bentLine([], 1)).toBeNull();
    expect(bentLine([5], 2)).toBeNull();
    expect(bentLine(new Array<number>(40).fill(7), 2)!.slopes.map((s) => Math.abs(s) < 1e-9)).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe('a rise of several slopes with no hold, as an import derives it', () => {
  it('is said to be a ramp with its pieces, where it had been given holds it never had', () => {
    const d = deriveSteps(
      [],
      series(
        [
          [20, 0, 100],
          [20, 100, 400],
        ],
        0.3,
        false,
        seeded(1),
      ),
    );
    expect(d).toMatchObject({
      steps: null,
      ramp: {
        fromPerSec: 0,
        toPerSec: 400,
        seconds: 40,
        pieces: [
          { toPerSec: 100, seconds: 20 },
          { toPerSec: 400, seconds: 20 },
        ],
      },
      why: 'the offered rate rose continuously from 0 to 400/s over 40 s, in 2 slopes (to 100/s over 20 s, then to 400/s over 20 s), with no holds: there are no steps to judge',
    });
  });

  it('a two-hour breakpoint run of two slopes is no plan of two steps of 14 s holds', () => {
    const ys = [0];
    for (let i = 0; i < 3600; i++) ys.push(Math.round(10 + i * 0.2));
    for (let i = 0; i < 3600; i++) ys.push(Math.round(730 + i));
    const d = deriveSteps([], ys);
    expect(d.steps).toBeNull();
    expect(d.steps === null && d.ramp?.pieces).toEqual([
      { toPerSec: 730, seconds: 3600 },
      { toPerSec: 4329, seconds: 3599 },
    ]);
  });

  it('random rises of 2 and 3 slopes are never judged as steps, and most are said to be ramps; random stepped plans never are', () => {
    const rnd = seeded(4242);
    let ramps = 0;
    const judged: string[] = [];
    const stepsAsRamps: string[] = [];
    const N = 40;
    for (let k = 0; k < N; k++) {
      const whole = k % 2 === 1;
      let level = Math.round(rnd() * 100);
      const segs: Segment[] = [];
      for (let p = 0, pieces = 2 + Math.floor(rnd() * 2); p < pieces; p++) {
        const d = 10 + Math.round(rnd() * 50);
        const to = level + Math.round(d * (1 + rnd() * 20));
        segs.push([d, level, to]);
        level = to;
      }
      if (rnd() < 0.3) segs.push([20, level, 0]);
      const r = deriveSteps([], series(segs, rnd(), whole, rnd), whole);
      if (r.steps !== null) judged.push(JSON.stringify(segs));
      else if (r.ramp) ramps++;
      // a stepped plan: holds of 3 to 30 s, steps of 5 to 100% of the start, ramps of 0 to 9 s
      const start = 10 + Math.round(rnd() * 200);
      const step = Math.max(1, Math.round(start * (0.05 + rnd() * 0.95)));
      const ramp = Math.floor(rnd() * 10);
      const hold = 3 + Math.floor(rnd() * 28);
      const plan: Segment[] = [];
      for (let i = 0, steps = 3 + Math.floor(rnd() * 6); i < steps; i++)
        plan.push(
          [ramp, i === 0 ? 0 : start + (i - 1) * step, start + i * step],
          [hold, start + i * step, start + i * step],
        );
      const s = deriveSteps([], series(plan, rnd(), whole, rnd), whole);
      if (s.steps === null && s.ramp) stepsAsRamps.push(JSON.stringify({ start, step, ramp, hold, whole }));
    }
    expect(judged).toEqual([]);
    expect(stepsAsRamps).toEqual([]);
    // the rest end in a piece too gentle to tell from a hold (within 3 tolerances of its rate): refused as before
    expect(ramps / N).toBeGreaterThanOrEqual(0.85);
  });
});
