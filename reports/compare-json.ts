/**
 * `plateau compare --json`: two runs as one document for machines: each run's headline figures,
 * B's change against A, the settings that differ, and one row per offered rate either run ran
 * with both runs' throughput, p50/p99, error rate and verdict. Pure.
 */
import type { CostResult } from '../analysis/models/cost.ts';
import { kneeResult } from '../analysis/stop.ts';
import type { Percentile, RunResult, StepResult } from '../analysis/types.ts';

export const COMPARE_JSON_SCHEMA_VERSION = 1;

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
  uslPeakPerSec: number | null;
  stopReason: string;
}

export interface CompareStepFigures {
  /** 1-based, as every output numbers steps. */
  step: number;
  throughputPerSec: number;
  p50: ComparePercentile | null;
  p99: ComparePercentile | null;
  errorRate: number;
  verdict: string;
}

export interface CompareRateRow {
  ratePerSec: number;
  /** null: the run did not offer this rate. */
  a: CompareStepFigures | null;
  b: CompareStepFigures | null;
  /** (B - A) / A; null without both or when A is 0. */
  change: { throughput: number | null; p99: number | null };
}

/** The document `plateau compare --json` prints. */
export interface CompareDocument {
  schemaVersion: typeof COMPARE_JSON_SCHEMA_VERSION;
  kind: 'plateau-compare';
  a: CompareRunFigures;
  b: CompareRunFigures;
  change: { capacity: number | null; peak: number | null; uslPeak: number | null };
  /** Settings in which the runs differ: read the comparison with these. */
  warnings: string[];
  rates: CompareRateRow[];
  cost: { a: CostResult; b: CostResult } | null;
}

/** The rows the shell pairs up (the last attempt of each run at each rate). */
export interface CompareJsonInput {
  a: RunResult;
  b: RunResult;
  rows: { ratePerSec: number; a: StepResult | null; b: StepResult | null }[];
  warnings: string[];
  cost: { a: CostResult; b: CostResult } | null;
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
    stopReason: r.stopReason,
  };
}

function percentile(s: StepResult, q: number): ComparePercentile | null {
  const p: Percentile | undefined = s.latency.find((x) => x.q === q);
  return p ? { valueMs: p.valueMs, samples: p.n, reliable: p.reliable } : null;
}

function stepFigures(s: StepResult | null): CompareStepFigures | null {
  if (s === null) return null;
  return {
    step: s.index + 1,
    throughputPerSec: s.throughputPerSec,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    errorRate: s.errorRate,
    verdict: s.verdict,
  };
}

export function compareDocument(input: CompareJsonInput): CompareDocument {
  const { a, b } = input;
  const fa = runFigures(a),
    fb = runFigures(b);
  return {
    schemaVersion: COMPARE_JSON_SCHEMA_VERSION,
    kind: 'plateau-compare',
    a: fa,
    b: fb,
    change: {
      capacity: relativeChange(fa.capacityPerSec, fb.capacityPerSec),
      peak: relativeChange(fa.peakPerSec, fb.peakPerSec),
      uslPeak: relativeChange(fa.uslPeakPerSec, fb.uslPeakPerSec),
    },
    warnings: input.warnings,
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
      };
    }),
    cost: input.cost,
  };
}

export function renderCompareJson(input: CompareJsonInput): string {
  return `${JSON.stringify(compareDocument(input), null, 2)}\n`;
}
