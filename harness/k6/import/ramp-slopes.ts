/**
 * A rise in a few straight pieces: the least-squares line with one or two bends (a k6
 * ramping-arrival-rate whose stages ramp on at other slopes, with no hold between them), for
 * continuous-ramp.ts, which tells such a rise from a stepped plan. Each piece starts where the one
 * before it ended (k6 ramps from one stage's target to the next), so a bend adds two parameters:
 * where, and the new slope. Pure.
 */

/** The shortest piece a bend may make: as long as a ramp must rise over (continuous-ramp.ts RAMP_MIN_S), so that a stepped plan's first ramp and its small steps after it are no two pieces. */
export const MIN_PIECE_S = 10;
/** Bends are searched on a grid of at most this many points, then each to the second around its best. */
const GRID_POINTS = 60;

export interface Bent {
  /** Where each bend lies, in seconds from the series' first (ascending). */
  bends: number[];
  /** The fitted rate at the series' second i (its index). */
  at(i: number): number;
  /** Each piece's slope, /s per second, first to last. */
  slopes: number[];
  /** Squared difference of the series from the fit. */
  sse: number;
}

/** The best fit of `ys` with exactly `count` bends (1 or 2), or null when the series is too short for them. */
export function bentLine(ys: readonly number[], count: 1 | 2): Bent | null {
  const n = ys.length;
  // the series' seconds run from 0 to n - 1: the last piece from its bend to n - 1
  const lo = MIN_PIECE_S;
  const hi = n - 1 - MIN_PIECE_S;
  if (hi - lo < (count - 1) * MIN_PIECE_S) return null;
  const sums = new Sums(ys);
  const grid = Math.max(1, Math.floor(n / GRID_POINTS));
  let best: { bends: number[]; sse: number } | null = null;
  const tryBends = (bends: number[]) => {
    const sse = sums.fit(bends)?.sse;
    if (sse !== undefined && (best === null || sse < best.sse)) best = { bends, sse };
  };
  if (count === 1) {
    for (let k = lo; k <= hi; k += grid) tryBends([k]);
  } else {
    for (let k1 = lo; k1 <= hi - MIN_PIECE_S; k1 += grid)
      for (let k2 = k1 + MIN_PIECE_S; k2 <= hi; k2 += grid) tryBends([k1, k2]);
  }
  // each bend to the second around its grid point, then to a tenth of one, the other held (a
  // stage's end lies anywhere in its second); the tenths twice, as moving one moves the other's best
  for (const [step, reach] of [
    [1, grid],
    [0.1, 1],
    [0.1, 1],
  ]) {
    if (best === null) break;
    if (step === 1 && grid === 1) continue;
    for (let j = 0; j < count; j++) {
      const at: number[] = (best as { bends: number[] }).bends;
      for (let d = -reach; d <= reach + 1e-9; d += step) {
        const bends = [...at];
        bends[j] = Math.min(hi, Math.max(lo, at[j] + d));
        if (bends.every((b, i) => i === 0 || b - bends[i - 1] >= MIN_PIECE_S)) tryBends(bends);
      }
    }
  }
  return best === null ? null : fitBends(ys, (best as { bends: number[] }).bends);
}

/** The line through `ys` bent at each of `bends` (ascending, seconds from the first): least squares, its pieces joined; null where singular. */
export function fitBends(ys: readonly number[], bends: readonly number[]): Bent | null {
  const f = new Sums(ys).fit(bends);
  if (f === null) return null;
  const { coef } = f;
  const at = (i: number) => {
    let v = coef[0] + coef[1] * i;
    for (let j = 0; j < bends.length; j++) v += coef[2 + j] * Math.max(0, i - bends[j]);
    return v;
  };
  let sse = 0;
  for (let i = 0; i < ys.length; i++) sse += (ys[i] - at(i)) ** 2;
  const slopes = [coef[1]];
  for (let j = 0; j < bends.length; j++) slopes.push(slopes[j] + coef[2 + j]);
  return { bends: [...bends], at, slopes, sse };
}

/**
 * Least squares of y_i = b0 + b1 i + sum_j c_j max(0, i - k_j) from the series' suffix sums (of
 * 1, i, i^2, y and i y from each second on), so that each placement of the bends costs a few
 * sums, not a pass over the seconds: a two-hour run's bends are searched in milliseconds.
 */
class Sums {
  private readonly s0: Float64Array;
  private readonly s1: Float64Array;
  private readonly s2: Float64Array;
  private readonly sy: Float64Array;
  private readonly siy: Float64Array;
  private readonly yy: number;
  constructor(ys: readonly number[]) {
    const n = ys.length;
    this.s0 = new Float64Array(n + 1);
    this.s1 = new Float64Array(n + 1);
    this.s2 = new Float64Array(n + 1);
    this.sy = new Float64Array(n + 1);
    this.siy = new Float64Array(n + 1);
    let yy = 0;
    for (let i = n - 1; i >= 0; i--) {
      this.s0[i] = this.s0[i + 1] + 1;
      this.s1[i] = this.s1[i + 1] + i;
      this.s2[i] = this.s2[i + 1] + i * i;
      this.sy[i] = this.sy[i + 1] + ys[i];
      this.siy[i] = this.siy[i + 1] + i * ys[i];
      yy += ys[i] * ys[i];
    }
    this.yy = yy;
  }

  /** The coefficients (b0, b1, c_1...) and the squared difference they leave; null where singular. */
  fit(bends: readonly number[]): { coef: number[]; sse: number } | null {
    const p = 2 + bends.length;
    const n = this.s0.length - 1;
    // the basis as (k, from): 1 and i are (0, 0) with their own sums; a hinge at k counts from ceil(k)
    const a = Array.from({ length: p }, () => new Array<number>(p + 1).fill(0));
    const { s0, s1, s2, sy, siy } = this;
    a[0][0] = n;
    a[0][1] = a[1][0] = s1[0];
    a[1][1] = s2[0];
    a[0][p] = sy[0];
    a[1][p] = siy[0];
    for (let j = 0; j < bends.length; j++) {
      const k = bends[j];
      const c = Math.min(n, Math.ceil(k));
      const r = 2 + j;
      a[0][r] = a[r][0] = s1[c] - k * s0[c];
      a[1][r] = a[r][1] = s2[c] - k * s1[c];
      a[r][p] = siy[c] - k * sy[c];
      for (let l = 0; l <= j; l++) {
        // both hinges are past zero from the later bend's second on
        const kl = bends[l];
        a[r][2 + l] = a[2 + l][r] = s2[c] - (k + kl) * s1[c] + k * kl * s0[c];
      }
    }
    const rhs = a.map((row) => row[p]);
    const coef = solve(a);
    if (coef === null) return null;
    let fitted = 0;
    for (let r = 0; r < p; r++) fitted += coef[r] * rhs[r];
    return { coef, sse: Math.max(0, this.yy - fitted) };
  }
}

/** Gaussian elimination with partial pivoting of an augmented p x (p + 1) system; null when singular. */
function solve(a: number[][]): number[] | null {
  const p = a.length;
  for (let c = 0; c < p; c++) {
    let piv = c;
    for (let r = c + 1; r < p; r++) if (Math.abs(a[r][c]) > Math.abs(a[piv][c])) piv = r;
    if (Math.abs(a[piv][c]) < 1e-9) return null;
    [a[c], a[piv]] = [a[piv], a[c]];
    for (let r = c + 1; r < p; r++) {
      const f = a[r][c] / a[c][c];
      for (let k = c; k <= p; k++) a[r][k] -= f * a[c][k];
    }
  }
  const out = new Array<number>(p).fill(0);
  for (let r = p - 1; r >= 0; r--) {
    let v = a[r][p];
    for (let k = r + 1; k < p; k++) v -= a[r][k] * out[k];
    out[r] = v / a[r][r];
  }
  return out;
}
