/**
 * `plateau compare --json`: two runs as one document for machines: each run's headline figures,
 * B's change against A, the settings that differ, and one row per offered rate either run ran
 * with both runs' throughput, p50/p99, error rate and verdict; where the runs recorded names, a
 * `byName` list on each rate both held, the names that regressed (`nameRegressions`, confirmed at
 * other rates, worded in `nameWarnings`; the rises not confirmed in `nameUnconfirmed`) and the
 * names only one run recorded (`names`); each run's capacity within its
 * latency objective (`slo`, null without one) and the cost per request at it (`cost.slo`). Pure.
 */
import {
  compareByName,
  type NameComparison,
  type NameRegression,
  type NameSkip,
  type NameThresholds,
} from '../analysis/compare/by-name.ts';
import { sizedDifferences } from '../analysis/compare/differences.ts';
import { downstreamRows, fanOutRises, type DownstreamCompareRow } from '../analysis/compare/downstreams.ts';
import { COMPARE_LABELS, nameWarnings } from '../analysis/compare/name-warnings.ts';
import { generatorInLatencies } from '../analysis/warnings.ts';
import { sloObjectiveText } from '../analysis/slo.ts';
import type { CompareCosts } from './compare.ts';
import { pairUnit } from './cells.ts';
import { uslExtrapolated } from './models-text.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import type { NameResult, Percentile, RunResult, StepResult } from '../analysis/types.ts';

/**
 * 3 (12-07): `change` has no `uslPeak`: the USL's predicted peak is a model's extrapolation, which
 * moved 10% and more between runs of one target and settings, so a change between two runs' is no
 * difference between them (the text's headline table dropped its row too); each run's own figure
 * stays in `a` and `b`. 2 (12-06): `nameRegressions` holds the confirmed rises only
 * (analysis/compare/by-name.ts), the rest in `nameUnconfirmed`; each carries what it rests on;
 * byName's `tail` gives the judged percentile's values. 1 held every rise at any one rate.
 */
export const COMPARE_JSON_SCHEMA_VERSION = 3;

/** A latency percentile with the samples behind it (reliable false: too few for this quantile). */
export interface ComparePercentile {
  valueMs: number | null;
  samples: number;
  reliable: boolean;
}

export interface CompareRunFigures {
  runId: string;
  engine: string;
  capacityPerSec: number | null;
  heldAtLeastPerSec: number | null;
  /** The knee's step, 1-based, and its offered rate; null when no step held. */
  knee: { step: number; ratePerSec: number } | null;
  peakPerSec: number;
  /** The run's USL predicted peak (its report's Models section): a model's figure, not a measured one; not compared. */
  uslPeakPerSec: number | null;
  /** The USL's N* lies past every N it was fitted to: its peak is a guess beyond the data (null: no fit). */
  uslPeakExtrapolated: boolean | null;
  stopReason: string;
  /** The capacity within the latency objective (RunResult.slo); null without an objective. */
  slo: CompareSlo | null;
}

export interface CompareSlo {
  objective: string;
  capacityPerSec: number | null;
  /** 1-based, as every output numbers steps; null when none was established. */
  step: number | null;
  /** No holding step missed the objective: the figure is a lower bound. */
  atLeast: boolean;
}

export interface CompareStepFigures {
  /** 1-based, as every output numbers steps. */
  step: number;
  throughputPerSec: number;
  p50: ComparePercentile | null;
  p99: ComparePercentile | null;
  errorRate: number;
  verdict: string;
  /**
   * The generator's own delays are in this step's latencies (its event loop stalled past 50 ms, or
   * it held generator-limited): a latency change here says as much of the generator as of the
   * target (the text's note; names' tails are not compared at a stalled step, their error rates are).
   */
  generatorInLatencies: boolean;
}

/** One name's steady window in one run. */
export interface CompareNameFigures {
  throughputPerSec: number;
  completedPerSec: number;
  completed: number;
  errorRate: number;
  p50: ComparePercentile | null;
  p99: ComparePercentile | null;
}

/** One name both runs recorded at a rate both held. */
export interface CompareNameRow {
  name: string;
  transaction: boolean;
  a: CompareNameFigures;
  b: CompareNameFigures;
  /**
   * The p99's alone: p99: (B - A) / A, null unless both p99s are reliable (p99Compared), so null
   * where a p90 was judged in its stead (read `tail`); errorRatePoints: B - A as a fraction (0.01
   * is one percentage point), null unless both completed some.
   */
  change: { p99: number | null; errorRatePoints: number | null };
  p99Compared: boolean;
  /**
   * The tail as judged, the one to read: the p99 (q 99), or the p90 where either p99 rests on too
   * few samples and both p90s do (q 90); a and b that percentile in each run (valueMs and its
   * samples; null where the run kept none); change (B - A) / A, null unless compared.
   */
  tail: {
    q: 99 | 90;
    a: ComparePercentile | null;
    b: ComparePercentile | null;
    compared: boolean;
    change: number | null;
    regressed: boolean;
  };
  /**
   * tail: the judged tail regressed (tail.regressed), whichever percentile it is; p99: the p99's
   * alone, false where a p90 was judged (a regressed p90 is regressed.tail, not p99); errorRate.
   * Each is a rise past the thresholds at this rate; it is a regression only where `nameRegressions`
   * lists it (confirmed at two rates or more: analysis/compare/by-name.ts), else `nameUnconfirmed` does.
   */
  regressed: { tail: boolean; p99: boolean; errorRate: boolean };
}

export interface CompareRateRow {
  ratePerSec: number;
  /** null: the run did not offer this rate. */
  a: CompareStepFigures | null;
  b: CompareStepFigures | null;
  /** (B - A) / A; null without both or when A is 0. */
  change: { throughput: number | null; p99: number | null };
  /**
   * Each name both runs recorded, where both held this rate; absent where names were not compared.
   * At a rate `names.skipped` lists as latencyOnly, the error rates alone were compared (each tail.compared false).
   */
  byName?: CompareNameRow[];
}

/** What the per-name comparison covered (null in the document when neither run recorded names). */
export interface CompareNames {
  /** Names only B recorded, and only A: listed, not compared. */
  added: string[];
  removed: string[];
  /** The run that recorded no per-name results, when only one did. */
  withoutNames: 'a' | 'b' | null;
  /** Rates both offered whose names were not compared, and why; latencyOnly: their tails alone (since 12-07). */
  skipped: NameSkip[];
  thresholds: NameThresholds;
}

/** The document `plateau compare --json` prints. */
export interface CompareDocument {
  schemaVersion: typeof COMPARE_JSON_SCHEMA_VERSION;
  kind: 'plateau-compare';
  a: CompareRunFigures;
  b: CompareRunFigures;
  /**
   * capacity: between two established capacities (where B held every step, the text's "at least +N%"
   * comes from b.heldAtLeastPerSec, not from here); sloCapacity: null unless both runs established
   * one within the same objective. No USL peak: a model's extrapolation, not a difference between runs.
   */
  change: { capacity: number | null; sloCapacity: number | null; peak: number | null };
  /** Settings in which the runs differ: read the comparison with these. */
  warnings: string[];
  /** Figures plateau derived that differ (the VUs it sized), no setting of the user's: information. */
  derived: string[];
  rates: CompareRateRow[];
  /** Null when neither run recorded per-name results (one-name runs, older summaries). */
  names: CompareNames | null;
  /** Each name, rate and figure that regressed while both runs held the rate; empty when none. */
  nameRegressions: NameRegression[];
  /** Rises past the thresholds not confirmed at other rates (analysis/compare/by-name.ts): not regressions. */
  nameUnconfirmed: NameRegression[];
  /** The regressions in words, one per name and figure. */
  nameWarnings: string[];
  /** At the capacity, and (`slo`) at the capacity within the objective when either run has one. */
  cost: CompareCosts | null;
  /** Each declared downstream's ops per request at equal rates (analysis/compare/downstreams.ts); empty without any. */
  downstreams: DownstreamCompareRow[];
  /** A downstream whose fan-out rose past FAN_OUT_RISE at the rates both held, one sentence each. */
  downstreamWarnings: string[];
}

/** The rows the shell pairs up (the last attempt of each run at each rate). */
export interface CompareJsonInput {
  a: RunResult;
  b: RunResult;
  rows: { ratePerSec: number; a: StepResult | null; b: StepResult | null }[];
  warnings: string[];
  cost: CompareCosts | null;
}

/** (b - a) / a, the figure behind the text's "+4.2%"; null where the text shows "–". */
export function relativeChange(a: number | null | undefined, b: number | null | undefined): number | null {
  return a == null || b == null || a === 0 ? null : (b - a) / a;
}

function runFigures(r: RunResult): CompareRunFigures {
  const k = kneeResult(r);
  return {
    runId: r.runId,
    engine: r.engine,
    capacityPerSec: r.capacityPerSec,
    heldAtLeastPerSec: r.heldAtLeastPerSec ?? null,
    knee: k ? { step: k.index + 1, ratePerSec: k.ratePerSec } : null,
    peakPerSec: r.peakPerSec,
    uslPeakPerSec: r.models?.usl?.peakPerSec ?? null,
    uslPeakExtrapolated: r.models?.usl ? uslExtrapolated(r) : null,
    stopReason: r.stopReason,
    slo: r.slo
      ? {
          objective: sloObjectiveText(r.slo),
          capacityPerSec: r.slo.capacityPerSec,
          step: r.slo.step === null ? null : r.slo.step + 1,
          atLeast: r.slo.atLeast,
        }
      : null,
  };
}

/** Percentile q of a step's or a name's latency. */
function percentile(latency: Percentile[], q: number): ComparePercentile | null {
  const p = latency.find((x) => x.q === q);
  return p ? { valueMs: p.valueMs, samples: p.n, reliable: p.reliable } : null;
}

function nameFigures(n: NameResult): CompareNameFigures {
  return {
    throughputPerSec: n.throughputPerSec,
    completedPerSec: n.completedPerSec,
    completed: n.completed,
    errorRate: n.errorRate,
    p50: percentile(n.latency, 50),
    p99: percentile(n.latency, 99),
  };
}

/** The p99s themselves were compared (not a p90 in their stead). */
const p99 = (c: NameComparison): boolean => c.tail.compared && c.tail.q === 99;

function nameRow(c: NameComparison): CompareNameRow {
  return {
    name: c.name,
    transaction: c.transaction,
    a: nameFigures(c.a),
    b: nameFigures(c.b),
    // the p99 fields are the p99's alone; `tail` is what was judged (p90 where p99s rest on too few samples)
    change: { p99: p99(c) ? c.tail.change : null, errorRatePoints: c.errorRate.changePoints },
    p99Compared: p99(c),
    tail: {
      q: c.tail.q,
      a: percentile(c.a.latency, c.tail.q),
      b: percentile(c.b.latency, c.tail.q),
      compared: c.tail.compared,
      change: c.tail.change,
      regressed: c.tail.regressed,
    },
    regressed: { tail: c.tail.regressed, p99: p99(c) && c.tail.regressed, errorRate: c.errorRate.regressed },
  };
}

function stepFigures(s: StepResult | null): CompareStepFigures | null {
  if (s === null) return null;
  return {
    step: s.index + 1,
    throughputPerSec: s.throughputPerSec,
    p50: percentile(s.latency, 50),
    p99: percentile(s.latency, 99),
    errorRate: s.errorRate,
    verdict: s.verdict,
    generatorInLatencies: generatorInLatencies(s),
  };
}

export function compareDocument(input: CompareJsonInput): CompareDocument {
  const { a, b } = input;
  const fa = runFigures(a),
    fb = runFigures(b);
  const names = compareByName(a, b, input.rows);
  const byRate = new Map((names?.rates ?? []).map((r) => [r.ratePerSec, r.names.map(nameRow)]));
  return {
    schemaVersion: COMPARE_JSON_SCHEMA_VERSION,
    kind: 'plateau-compare',
    a: fa,
    b: fb,
    change: {
      capacity: relativeChange(fa.capacityPerSec, fb.capacityPerSec),
      sloCapacity:
        fa.slo && fb.slo && fa.slo.objective === fb.slo.objective
          ? relativeChange(fa.slo.capacityPerSec, fb.slo.capacityPerSec)
          : null,
      // null where either run has no whole steady window (peakStep null), as the table's "–"
      peak: a.peakStep === null || b.peakStep === null ? null : relativeChange(fa.peakPerSec, fb.peakPerSec),
    },
    warnings: input.warnings,
    derived: sizedDifferences(a, b),
    rates: input.rows.map((r) => {
      const sa = stepFigures(r.a),
        sb = stepFigures(r.b);
      return {
        ratePerSec: r.ratePerSec,
        a: sa,
        b: sb,
        change: {
          throughput: relativeChange(sa?.throughputPerSec, sb?.throughputPerSec),
          p99: relativeChange(sa?.p99?.valueMs, sb?.p99?.valueMs),
        },
        ...(byRate.has(r.ratePerSec) ? { byName: byRate.get(r.ratePerSec) } : {}),
      };
    }),
    names:
      names === null
        ? null
        : {
            added: names.added,
            removed: names.removed,
            withoutNames: names.withoutNames,
            skipped: names.skipped,
            thresholds: names.thresholds,
          },
    nameRegressions: names?.regressions ?? [],
    nameUnconfirmed: names?.unconfirmed ?? [],
    nameWarnings: names === null ? [] : nameWarnings(names, COMPARE_LABELS, pairUnit(a, b)),
    cost: input.cost,
    downstreams: downstreamRows(a, b),
    downstreamWarnings: fanOutRises(a, b),
  };
}

export function renderCompareJson(input: CompareJsonInput): string {
  return `${JSON.stringify(compareDocument(input), null, 2)}\n`;
}
