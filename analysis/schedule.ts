/**
 * The arrival schedule of an open model: a piecewise-linear rate r(t) (ramps and holds) and the
 * moment each arrival is due. Arrival n (n = 1, 2, ...) is due at the t where the integral of the
 * rate reaches n (k6's ramping-arrival-rate semantics):
 *
 *   I(t) = ∫₀ᵗ r(u) du,   arrival_n = min { t : I(t) >= n }
 *
 * Within a segment that starts at T with rate r0, ends at T + D with rate r1 and has integral C at
 * its start, I(T + τ) = C + r0·τ + a·τ² with a = (r1 - r0) / (2D). Solving I = n for τ ≥ 0 gives
 *
 *   τ = 2m / (r0 + sqrt(r0² + 4·a·m)),   m = n - C
 *
 * (the rationalised root, stable for a of either sign and for r0 = 0). Pure: no clock, no I/O.
 */

export interface Segment {
  durationS: number;
  /** Rate at the start and the end of the segment; equal for a hold. */
  fromPerSec: number;
  toPerSec: number;
}

interface PreparedSegment extends Segment {
  startS: number;
  /** Integral of the rate from 0 to the start of this segment. */
  startCount: number;
  count: number;
}

export class Schedule {
  private readonly segments: PreparedSegment[];
  /** Total arrivals the schedule holds: floor(I(end)). */
  readonly totalArrivals: number;
  readonly durationS: number;
  private cursor = 0;

  constructor(segments: Segment[]) {
    let startS = 0;
    let startCount = 0;
    this.segments = segments.map((s) => {
      if (!(s.durationS > 0) || s.fromPerSec < 0 || s.toPerSec < 0) {
        throw new RangeError(`invalid schedule segment ${JSON.stringify(s)}`);
      }
      const count = ((s.fromPerSec + s.toPerSec) / 2) * s.durationS;
      const p = { ...s, startS, startCount, count };
      startS += s.durationS;
      startCount += count;
      return p;
    });
    this.durationS = startS;
    this.totalArrivals = Math.floor(startCount + 1e-9);
  }

  /** I(t): arrivals due by time t (not floored). */
  integral(tS: number): number {
    for (const s of this.segments) {
      if (tS < s.startS + s.durationS) {
        const tau = Math.max(0, tS - s.startS);
        const a = (s.toPerSec - s.fromPerSec) / (2 * s.durationS);
        return s.startCount + s.fromPerSec * tau + a * tau * tau;
      }
    }
    return this.segments.length ? this.totalArrivalsExact() : 0;
  }

  /** Rate r(t) in arrivals per second. */
  rateAt(tS: number): number {
    for (const s of this.segments) {
      if (tS < s.startS + s.durationS) {
        const tau = Math.max(0, tS - s.startS);
        return s.fromPerSec + ((s.toPerSec - s.fromPerSec) * tau) / s.durationS;
      }
    }
    return 0;
  }

  /**
   * Time (s) at which arrival n is due, or null past the end. Calls with increasing n are O(1)
   * amortised (a cursor remembers the segment).
   */
  arrivalS(n: number): number | null {
    if (n < 1 || n > this.totalArrivals) return null;
    if (this.cursor >= this.segments.length || n <= this.segments[this.cursor].startCount) this.cursor = 0;
    while (this.cursor < this.segments.length) {
      const s = this.segments[this.cursor];
      if (n <= s.startCount + s.count + 1e-9) return s.startS + solveTau(s, n - s.startCount);
      this.cursor++;
    }
    return null;
  }

  private totalArrivalsExact(): number {
    const last = this.segments[this.segments.length - 1];
    return last.startCount + last.count;
  }
}

function solveTau(s: PreparedSegment, m: number): number {
  const a = (s.toPerSec - s.fromPerSec) / (2 * s.durationS);
  const disc = Math.max(0, s.fromPerSec * s.fromPerSec + 4 * a * m);
  const denom = s.fromPerSec + Math.sqrt(disc);
  const tau = denom > 0 ? (2 * m) / denom : 0;
  return Math.min(Math.max(0, tau), s.durationS);
}
