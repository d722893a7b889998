/**
 * Model outputs: Little's law per step, the USL fit, utilisation near the knee.
 * Types only, no I/O.
 */
import type { StepResult } from './results.ts';

/**
 * Little's law for one step: mean concurrency N = X x W (X successful arrivals/s). Where an arrival
 * is several requests (Models.nRequests), N is the requests in flight at the target (the sum over
 * request names of ok/s x mean) and W = N / X; else W is the arrivals' mean time (models/little.ts).
 */
export interface LittleRow {
  index: number;
  /** The step's attempt (StepResult.attempt, 1 when absent): a rerun at the same index is its own row. Absent in older runs. */
  attempt?: number;
  ratePerSec: number;
  throughputPerSec: number;
  meanMs: number;
  concurrency: number;
}

/** Gunther's Universal Scalability Law fitted to (N, X): X(N) = gamma N / (1 + alpha (N-1) + beta N (N-1)). */
export interface UslFit {
  /** Contention (serialisation), >= 0. */
  alpha: number;
  /** Coherency (crosstalk), >= 0. */
  beta: number;
  /** Throughput per unit of concurrency without contention (req/s at N = 1). */
  gamma: number;
  /** N* = sqrt((1 - alpha) / beta): the concurrency of peak throughput; null when beta is 0 or alpha >= 1. */
  nStar: number | null;
  /** X(N*), the predicted peak (req/s); null without N*, or with nStarFar or peakFar. A model's figure, never a step's. */
  peakPerSec: number | null;
  /**
   * N* lies more than 2x past the largest N fitted (models/usl.ts NEAR_N_FACTOR): no peak is
   * predicted (peakPerSec null), the curve there resting on no step. Absent otherwise, and in runs
   * analysed before 2026-12-07.
   */
  nStarFar?: true;
  /**
   * X(N*) would be more than 1.5x the highest throughput fitted (models/usl.ts PEAK_X_FACTOR):
   * no peak is predicted (peakPerSec null), no step having come near it. Absent otherwise, and in
   * runs analysed before 2026-12-08.
   */
  peakFar?: true;
  /** The largest N the fit rests on. Absent in runs stored before 2026-12-05. */
  maxN?: number;
  /**
   * N* lies past maxN, or in a gap between the steps with none within 2x of it (gapN): peakPerSec
   * is no measured step's figure. Absent in runs stored before 2026-12-05.
   */
  extrapolated?: boolean;
  /** The fitted Ns on either side of an N* in a gap (none within 2x of it); absent otherwise. */
  gapN?: [number, number];
  /** Coefficient of determination of the fit on X. */
  r2: number;
  /** Points the fit rests on. */
  points: number;
}

/** Utilisation of one step against capacity and the queueing amplification 1 / (1 - rho). */
export interface UtilisationRow {
  index: number;
  /** The attempt of the LittleRow it was computed from (1 when absent). Absent in older runs. */
  attempt?: number;
  /** rho = X / capacity. */
  rho: number;
  /** 1 / (1 - rho); null at or beyond saturation (rho >= 1). */
  amplification: number | null;
  /** Measured mean latency over the first step's mean, to set beside the amplification; null without data. */
  latencyInflation: number | null;
}

/** The models section (analysis/models). */
export interface Models {
  little: LittleRow[];
  /** Null when fewer than 4 steps have data, or the fit failed; `uslNote` says which. */
  usl: UslFit | null;
  uslNote: string;
  /** The steps up to the knee left out of the fit (the generator's own delays in their mean and N), and why: a sentence. */
  uslLeftOut?: string;
  /** Capacity used as the denominator of rho (req/s); null when no step held. */
  utilisationBasePerSec: number | null;
  /**
   * The run established no capacity (every step held, or it stopped for another reason:
   * generator-bound, interrupted, unconfirmed...): the saturation throughput is only at least
   * utilisationBasePerSec, so each rho is at most its figure and nothing is known to be saturated.
   */
  utilisationBaseAtLeast?: true;
  utilisation: UtilisationRow[];
  /**
   * W is each step's mean time per arrival from the mix's entries, think time included (models/little.ts);
   * absent: the requests' mean. Not set with nRequests; in runs analysed before it, where a transaction's N counted arrivals in flight.
   */
  wPerArrival?: boolean;
  /**
   * An arrival is several requests, and N is the requests in flight at the target (the sum over the
   * step's request names of ok/s x mean latency, think time excluded), W = N / X an arrival's time
   * at the target (models/little.ts requestRows). Absent where each arrival is one request, where
   * the run recorded no mean per request name (then the fit is withheld), and in runs analysed before 2026-12-07.
   */
  nRequests?: true;
}
