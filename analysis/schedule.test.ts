import { describe, expect, it } from 'vitest';
import { Schedule, type Segment } from './schedule.ts';

/** Exact rationals over BigInt: the reference the float schedule is checked against. */
type Q = { n: bigint; d: bigint };
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
const q = (n: bigint, d = 1n): Q => {
  const g = gcd(n, d) || 1n;
  return d < 0n ? { n: -n / g, d: -d / g } : { n: n / g, d: d / g };
};
const add = (a: Q, b: Q) => q(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Q, b: Q) => q(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Q, b: Q) => q(a.n * b.n, a.d * b.d);
const div = (a: Q, b: Q) => q(a.n * b.d, a.d * b.n);
const cmp = (a: Q, b: Q) => (a.n * b.d < b.n * a.d ? -1 : a.n * b.d > b.n * a.d ? 1 : 0);
/** A double is a dyadic rational: convert it without rounding. */
function exact(x: number): Q {
  let k = 0n;
  while (!Number.isInteger(x)) {
    x *= 2;
    k++;
  }
  return q(BigInt(x), 2n ** k);
}
const int = (x: number) => q(BigInt(x));

/** I(t) computed exactly, segment by segment, for integer rates and durations. */
function exactIntegral(segs: Segment[], t: Q): Q {
  let start = int(0);
  let acc = int(0);
  for (const s of segs) {
    const dur = int(s.durationS);
    const end = add(start, dur);
    const tau = cmp(t, end) >= 0 ? dur : cmp(t, start) <= 0 ? int(0) : sub(t, start);
    const a = div(int(s.toPerSec - s.fromPerSec), mul(int(2), dur));
    acc = add(acc, add(mul(int(s.fromPerSec), tau), mul(a, mul(tau, tau))));
    if (cmp(t, end) < 0) return acc;
    start = end;
  }
  return acc;
}

const stepped: Segment[] = [
  { durationS: 2, fromPerSec: 0, toPerSec: 50 },
  { durationS: 5, fromPerSec: 50, toPerSec: 50 },
  { durationS: 2, fromPerSec: 50, toPerSec: 100 },
  { durationS: 5, fromPerSec: 100, toPerSec: 100 },
  { durationS: 3, fromPerSec: 100, toPerSec: 30 },
];

describe('Schedule', () => {
  it.each([
    ['stepped ramps and holds', stepped],
    ['constant', [{ durationS: 10, fromPerSec: 7, toPerSec: 7 }]],
    ['ramp from zero', [{ durationS: 4, fromPerSec: 0, toPerSec: 1000 }]],
    ['ramp down', [{ durationS: 3, fromPerSec: 900, toPerSec: 1 }]],
    [
      'zero-rate gap',
      [
        { durationS: 1, fromPerSec: 10, toPerSec: 10 },
        { durationS: 2, fromPerSec: 0, toPerSec: 0 },
        { durationS: 1, fromPerSec: 10, toPerSec: 10 },
      ],
    ],
  ])('%s: every arrival lands where the exact integral reaches n', (_name, segs: Segment[]) => {
    const s = new Schedule(segs);
    let prev = -Infinity;
    const tol = q(1n, 1_000_000n);
    for (let n = 1; n <= s.totalArrivals; n++) {
      const t = s.arrivalS(n)!;
      expect(t).toBeGreaterThan(prev);
      prev = t;
      const err = sub(exactIntegral(segs, exact(t)), int(n));
      expect(cmp(err, tol) <= 0 && cmp(err, q(-tol.n, tol.d)) >= 0, `arrival ${n} at ${t}`).toBe(true);
    }
    expect(s.arrivalS(s.totalArrivals + 1)).toBeNull();
    expect(s.totalArrivals).toBe(Number(exactIntegral(segs, int(1e6)).n / exactIntegral(segs, int(1e6)).d));
  });

  it('the count over any interval equals the integral of the rate over it (±1 at the edges)', () => {
    const s = new Schedule(stepped);
    const times: number[] = [];
    for (let n = 1; n <= s.totalArrivals; n++) times.push(s.arrivalS(n)!);
    for (const [a, b] of [
      [0, 1],
      [1.5, 3.25],
      [2, 7],
      [7, 9],
      [8.5, 16.9],
      [0, 17],
    ]) {
      const count = times.filter((t) => t > a && t <= b).length;
      expect(Math.abs(count - (s.integral(b) - s.integral(a)))).toBeLessThanOrEqual(1);
    }
  });

  it('answers out-of-order queries (the cursor rewinds)', () => {
    const s = new Schedule(stepped);
    const late = s.arrivalS(500);
    const early = s.arrivalS(3);
    expect(early).toBeLessThan(late!);
    expect(s.arrivalS(500)).toBe(late);
  });

  it('refuses negative rates and empty segments', () => {
    expect(() => new Schedule([{ durationS: 0, fromPerSec: 1, toPerSec: 1 }])).toThrow(RangeError);
    expect(() => new Schedule([{ durationS: 1, fromPerSec: -1, toPerSec: 1 }])).toThrow(RangeError);
  });
});
