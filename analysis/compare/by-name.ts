/**
 * Two runs per name at equal offered rates (compare and gate). Pure. At each rate where both runs
 * held (the rows of compare's table, analysis/compare/rows.ts), each name recorded by both is
 * compared; a name only one run recorded is listed as added or removed, never compared.
 *
 *   p99 regressed         when both p99s are reliable and  p99_B - p99_A > p99Relative x p99_A
 *                                                    and  p99_B - p99_A >= p99FloorMs
 *                         (where either p99 rests on too few samples and both p90s do not, the
 *                         same rule on the p90s, said as p90: a short hold's 300 samples of a name
 *                         make a p90, where a p99 needs 3,000; the knee's finding does the same)
 *   error rate regressed  when both completed some and    e_B > e_A + min(max(errorRateFloor, (errorRateFactor - 1) x e_A), errorRateCap)
 *                                                    and  B failed at least errorMinFailures of that name
 *                         (a small rate must double, a large one rise by errorRateCap: 30% -> 55% is a
 *                         regression, where "twice A's" could never flag a rate of 50% or more)
 *
 * A p99 on too few samples moves by itself; the floor keeps a 2 ms p99 going to 3 ms (+50%) from
 * reading as a regression, and the factor keeps a 5% error rate going to 6% (1 point) from doing so.
 *
 * A name's figure regressed only where it did so consistently: at two rates or more, and at half
 * or more of the rates where that figure was judged from the lowest at which it rose (`confirmed`:
 * a regression that grows with the load shows at the top rates alone). Near the knee a tail swings by
 * itself: three runs of one unchanged build flagged two or three names each at a single rate (a
 * p90 2.5x at 300/s, a user's review of 12-06), where a real regression (a 3x slower endpoint)
 * showed at every rate. A rise at one rate alone is kept apart as unconfirmed, said, never warned.
 * Only steps that held count: a failed step's tail is its queue, a contaminated one measured
 * another topology, a generator-limited one partly the generator. Two more exclusions are for the
 * tails alone (docs/decisions/052): a step whose event loop stalled past 50 ms holds the
 * generator's own delays in its latencies (the report leaves those out of its latency findings
 * too), and past 80% of the lower knee (nearKneeShare) a tail follows the utilisation: an
 * unchanged build gated against its own baseline warned on two names at 83% and 98% of its
 * capacity (p90s 2.1 and 3.5 x, a user's review of 12-07), where its server's mean at the knee was
 * 44 ms against the baseline's 16. Error rates are compared there too: left out with the tails,
 * a name going from 0% to 33% failures at rates both runs held went unsaid (a review of 12-07).
 */
import type { NameResult, RunResult, StepResult } from '../types.ts';
import { fmtMs } from '../format.ts';
import { establishedCapacity } from '../interrupted-stop.ts';
import { LOOP_DELAY_WARN_MS, loopStalled } from '../warnings.ts';
import { compareRows, type CompareRow } from './rows.ts';
import { reliableMs, TAIL_PERCENTILES, type TailPercentile } from '../percentiles.ts';

export interface NameThresholds {
  /** A p99 regressed when it rose by more than this share of A's ... */
  p99Relative: number;
  /** ... and by at least this many milliseconds. */
  p99FloorMs: number;
  /** An error rate regressed when B's passed A's plus this (a fraction: 0.01 is one percentage point) ... */
  errorRateFloor: number;
  /** ... and passed A's times this factor ... */
  errorRateFactor: number;
  /** ... with at least this many failures of that name in B's steady window (one failure of 30 is noise). */
  errorMinFailures: number;
  /** ... but a rise of more than this (a fraction: 0.1 is ten points) is enough whatever A's. */
  errorRateCap: number;
  /**
   * Tails are compared only at rates up to this share of the lower knee of the two runs (the offered
   * rate of the last step that held, where the capacity is established): past it a tail follows the utilisation (a queue's wait grows as 1 / (1 - utilisation)),
   * which two capacities within the gate's tolerance move by more than any threshold here. Error
   * rates are compared at every rate both held.
   */
  nearKneeShare: number;
}

/**
 * +25% and at least 5 ms for a p99, at rates up to 80% of the lower knee; for an error rate, more
 * than 1 percentage point and 2x, or more than 10 points whatever A's, on 3 failures or more.
 */
export const NAME_REGRESSION_THRESHOLDS: NameThresholds = {
  p99Relative: 0.25,
  p99FloorMs: 5,
  errorRateFloor: 0.01,
  errorRateFactor: 2,
  errorMinFailures: 3,
  errorRateCap: 0.1,
  nearKneeShare: 0.8,
};

export interface NameTailChange {
  /** The percentile compared: 99, or 90 where a p99 rests on too few samples (99 when neither was compared). */
  q: TailPercentile;
  aMs: number | null;
  bMs: number | null;
  /** Both exist and rest on enough samples (Percentile.reliable): only then is it judged. */
  compared: boolean;
  /** (B - A) / A when compared and A > 0; null otherwise. */
  change: number | null;
  regressed: boolean;
}

export interface NameErrorChange {
  a: number;
  b: number;
  /** Both completed at least one: only then is it judged. */
  compared: boolean;
  /** B - A as a fraction (0.01 is one percentage point); null when not compared. */
  changePoints: number | null;
  regressed: boolean;
}

export interface NameComparison {
  name: string;
  transaction: boolean;
  a: NameResult;
  b: NameResult;
  /** The tail: p99, else p90 (NameTailChange.q). */
  tail: NameTailChange;
  errorRate: NameErrorChange;
}

/** One rate both runs held cleanly, with the names both recorded at it. */
export interface RateNames {
  ratePerSec: number;
  /** The steps compared, 0-based as in summary.json. */
  aIndex: number;
  bIndex: number;
  names: NameComparison[];
  /**
   * The rate was left out of the latency comparison (a stall, or near the knee: `skipped` lists
   * it, latencyOnly, with why): its error rates were compared, no tail (each tail.compared false).
   */
  tailsLeftOut?: true;
}

export interface NameRegression {
  name: string;
  transaction: boolean;
  ratePerSec: number;
  metric: 'p99' | 'p90' | 'error-rate';
  /** A's and B's figure: milliseconds for a percentile, a fraction for an error rate. */
  a: number;
  b: number;
  /** What each figure rests on: a percentile's samples (its n), an error rate's completions. */
  aN: number;
  bN: number;
  /** An error rate's failures (of aN, bN); absent for a percentile. */
  aFailed?: number;
  bFailed?: number;
}

/**
 * A rate both runs offered whose names were not compared: each side's reason ("fails"), null where
 * it held cleanly; or, where both did, the pair's (`near`: the rate is past nearKneeShare of the
 * lower knee's offered rate). `latencyOnly`: the rate was left out of the latency comparison only
 * (a stall, or near the knee): its error rates were compared, and it is among the rates compared.
 */
export interface NameSkip {
  ratePerSec: number;
  a: string | null;
  b: string | null;
  near?: { share: number; kneePerSec: number; upTo: number };
  latencyOnly?: true;
}

export interface NameComparisonResult {
  rates: RateNames[];
  /** Rate by rate, names in A's order: the confirmed ones (at two rates or more, half or more of those judged from the first). */
  regressions: NameRegression[];
  /** Rises past the thresholds that were not confirmed (one rate alone, or under half of those judged): said, not warned. */
  unconfirmed: NameRegression[];
  /** Names only B recorded, and names only A recorded (in order of first appearance). */
  added: string[];
  removed: string[];
  skipped: NameSkip[];
  /** The run that recorded no per-name results, when only one did (one name, or written before names were). */
  withoutNames: 'a' | 'b' | null;
  thresholds: NameThresholds;
}

/** The run recorded figures by name (a mix, or a transaction) in at least one step. */
export function hasNames(run: RunResult): boolean {
  return run.steps.some((s) => s.byName !== undefined && Object.keys(s.byName).length > 0);
}

/** Every name a run recorded, in order of first appearance. */
function namesOf(run: RunResult): string[] {
  const seen = new Set<string>();
  for (const s of run.steps) for (const n of Object.keys(s.byName ?? {})) seen.add(n);
  return [...seen];
}

/** Why none of a step's figures count (it failed, or held with another topology or an overloaded generator); null when they do. */
function notHeld(s: StepResult): string | null {
  if (s.verdict !== 'holds') return s.verdict;
  if (s.contaminated) return 'holds but contaminated';
  if (s.generatorLimited) return 'holds but generator-limited';
  return null;
}

/**
 * Why a held step's latencies do not count; null when they do. The report's own rule for its
 * latencies (generatorInLatencies): a stall of the generator's loop is in them. Its error rates
 * still count: a stall past 50 ms is far from any request's timeout.
 */
function stalled(s: StepResult): string | null {
  if (!loopStalled(s)) return null;
  return `holds, but its event loop stalled up to ${fmtMs(s.loopDelayMaxMs!)} ms (over ${LOOP_DELAY_WARN_MS} ms: the generator's own delays are in its latencies)`;
}

/**
 * The lower of the two runs' knees, by the rate it offered (the capacity is its throughput, a little
 * under: 80% of a 497 capacity left out the step of 400 of a 500 knee), of the runs whose capacity
 * is established; null where neither is.
 */
function lowerKnee(a: RunResult, b: RunResult): number | null {
  const knee = (r: RunResult) => {
    const c = establishedCapacity(r);
    if (c === null || c <= 0) return null;
    return r.steps.find((s) => s.index === r.kneeStep)?.ratePerSec ?? c;
  };
  const knees = [knee(a), knee(b)].filter((k): k is number => k !== null);
  return knees.length > 0 ? Math.min(...knees) : null;
}

/** The tail of a name in A and B: p99 where both rest on enough samples, else p90 where both do, else not compared. */
export function tailChange(a: NameResult, b: NameResult, t: NameThresholds): NameTailChange {
  for (const q of TAIL_PERCENTILES) {
    const aMs = reliableMs(a.latency, q),
      bMs = reliableMs(b.latency, q);
    if (aMs === null || bMs === null) continue;
    const delta = bMs - aMs;
    return {
      q,
      aMs,
      bMs,
      compared: true,
      change: delta / aMs,
      regressed: delta > t.p99Relative * aMs && delta >= t.p99FloorMs,
    };
  }
  return tailNotCompared(a, b);
}

/** A tail not compared: the p99s as they are, for the table (unreliable ones marked there). */
function tailNotCompared(a: NameResult, b: NameResult): NameTailChange {
  const p99 = (n: NameResult) => n.latency.find((p) => p.q === 99)?.valueMs ?? null;
  return { q: 99, aMs: p99(a), bMs: p99(b), compared: false, change: null, regressed: false };
}

export function errorRateChange(a: NameResult, b: NameResult, t: NameThresholds): NameErrorChange {
  if (a.completed <= 0 || b.completed <= 0)
    return { a: a.errorRate, b: b.errorRate, compared: false, changePoints: null, regressed: false };
  return {
    a: a.errorRate,
    b: b.errorRate,
    compared: true,
    changePoints: b.errorRate - a.errorRate,
    regressed:
      b.errorRate >
        a.errorRate + Math.min(Math.max(t.errorRateFloor, (t.errorRateFactor - 1) * a.errorRate), t.errorRateCap) &&
      b.failed >= t.errorMinFailures,
  };
}

/** The names both steps recorded; `tails` false: the rate is left out of the latency comparison, error rates only. */
function compareAt(sa: StepResult, sb: StepResult, t: NameThresholds, tails: boolean): NameComparison[] {
  const na = sa.byName ?? {},
    nb = sb.byName ?? {};
  return Object.keys(na)
    .filter((name) => Object.hasOwn(nb, name))
    .map((name) => ({
      name,
      transaction: Boolean(na[name].transaction || nb[name].transaction),
      a: na[name],
      b: nb[name],
      tail: tails ? tailChange(na[name], nb[name], t) : tailNotCompared(na[name], nb[name]),
      errorRate: errorRateChange(na[name], nb[name], t),
    }));
}

/** The samples a name's percentile q rests on. */
function samplesAt(n: NameResult, q: number): number {
  return n.latency.find((p) => p.q === q)?.n ?? 0;
}

function regressionsAt(r: RateNames): NameRegression[] {
  const out: NameRegression[] = [];
  for (const c of r.names) {
    const base = { name: c.name, transaction: c.transaction, ratePerSec: r.ratePerSec };
    if (c.tail.regressed)
      out.push({
        ...base,
        metric: c.tail.q === 99 ? 'p99' : 'p90',
        a: c.tail.aMs as number,
        b: c.tail.bMs as number,
        aN: samplesAt(c.a, c.tail.q),
        bN: samplesAt(c.b, c.tail.q),
      });
    if (c.errorRate.regressed)
      out.push({
        ...base,
        metric: 'error-rate',
        a: c.errorRate.a,
        b: c.errorRate.b,
        aN: c.a.completed,
        bN: c.b.completed,
        aFailed: c.a.failed,
        bFailed: c.b.failed,
      });
  }
  return out;
}

/** The tail (p99 or p90, whichever each rate judged) or the error rate. */
export const figureOf = (metric: NameRegression['metric']): 'tail' | 'error-rate' =>
  metric === 'error-rate' ? 'error-rate' : 'tail';

/**
 * The rises that are regressions: a name's figure that rose at two rates or more, and at half or
 * more of the rates where it was judged from the lowest one it rose at, that lowest one chosen
 * as low as the rule allows; the others, below it, are unconfirmed (see the rule above).
 */
function confirmed(
  all: readonly NameRegression[],
  rates: readonly RateNames[],
): Pick<NameComparisonResult, 'regressions' | 'unconfirmed'> {
  const judgedFrom = (name: string, figure: string, fromPerSec: number) =>
    rates.filter(
      (r) =>
        r.ratePerSec >= fromPerSec &&
        r.names.some((c) => c.name === name && (figure === 'tail' ? c.tail.compared : c.errorRate.compared)),
    ).length;
  const risen = new Map<string, NameRegression[]>();
  const key = (x: NameRegression) => JSON.stringify([x.name, figureOf(x.metric)]);
  for (const x of all) risen.set(key(x), [...(risen.get(key(x)) ?? []), x]);
  // each name's figure: the lowest rate from which it rose at two rates or more and at half or more
  // of those judged (a blip below a real rise at the top rates leaves the real one confirmed)
  const fromOf = new Map<string, number>();
  for (const [k, group] of risen) {
    const { name, metric } = group[0];
    const from = group
      .map((g) => g.ratePerSec)
      .sort((p, q) => p - q)
      .find((r) => {
        const n = group.filter((g) => g.ratePerSec >= r).length;
        return n >= 2 && 2 * n >= judgedFrom(name, figureOf(metric), r);
      });
    if (from !== undefined) fromOf.set(k, from);
  }
  const holds = (x: NameRegression) => x.ratePerSec >= (fromOf.get(key(x)) ?? Infinity);
  return { regressions: all.filter(holds), unconfirmed: all.filter((x) => !holds(x)) };
}

/**
 * The per-name comparison of B against A; null when neither run recorded per-name results (one-name
 * runs, summaries written before names were recorded): those compare as whole steps only.
 */
export function compareByName(
  a: RunResult,
  b: RunResult,
  rows: readonly CompareRow[] = compareRows(a, b),
  thresholds: NameThresholds = NAME_REGRESSION_THRESHOLDS,
): NameComparisonResult | null {
  const withA = hasNames(a),
    withB = hasNames(b);
  if (!withA && !withB) return null;
  const inA = namesOf(a),
    inB = namesOf(b);
  const rates: RateNames[] = [];
  const skipped: NameSkip[] = [];
  const knee = lowerKnee(a, b);
  for (const row of rows) {
    if (row.a === null || row.b === null) {
      // a rate one run alone offered (its plan went further, or it stopped sooner): said, so the list of rates is whole
      if (withA && withB)
        skipped.push({
          ratePerSec: row.ratePerSec,
          a: row.a === null ? 'did not offer it' : null,
          b: row.b === null ? 'did not offer it' : null,
        });
      continue;
    }
    const [sa, sb] = [row.a, row.b];
    if (notHeld(sa) !== null || notHeld(sb) !== null) {
      // a side's stall said beside the other's failure, so the list says all it knows
      if (withA && withB)
        skipped.push({
          ratePerSec: row.ratePerSec,
          a: notHeld(sa) ?? stalled(sa),
          b: notHeld(sb) ?? stalled(sb),
        });
      continue;
    }
    // both held: the error rates are compared; the tails not where a generator stalled or near the knee
    const tails: NameSkip = { ratePerSec: row.ratePerSec, a: stalled(sa), b: stalled(sb) };
    if (tails.a === null && tails.b === null && knee !== null && row.ratePerSec > thresholds.nearKneeShare * knee)
      tails.near = { share: row.ratePerSec / knee, kneePerSec: knee, upTo: thresholds.nearKneeShare };
    const tailsLeftOut = tails.a !== null || tails.b !== null || tails.near !== undefined;
    const names = compareAt(sa, sb, thresholds, !tailsLeftOut);
    if (tailsLeftOut && withA && withB) skipped.push({ ...tails, latencyOnly: true });
    if (names.length > 0)
      rates.push({
        ratePerSec: row.ratePerSec,
        aIndex: sa.index,
        bIndex: sb.index,
        names,
        ...(tailsLeftOut ? { tailsLeftOut: true as const } : {}),
      });
  }
  return {
    rates,
    ...confirmed(rates.flatMap(regressionsAt), rates),
    added: inB.filter((n) => !inA.includes(n)),
    removed: inA.filter((n) => !inB.includes(n)),
    skipped,
    withoutNames: withA && withB ? null : withA ? 'b' : 'a',
    thresholds,
  };
}
