/**
 * steps-by-name.csv, the companion of steps.csv: one row per attempt x name (each request name and
 * each transaction of a mix), step numbered from 1 as in steps.csv, names in the reports' order
 * (names-text.ts nameOrder). Written only for a run with figures by name (a mix of several entries
 * or a transaction): a one-name run's figures are its steps' (steps.csv). Numbers stay numbers;
 * every string goes through csvSafe so no cell can start a formula. New columns are appended.
 */
import { stringify } from 'csv-stringify/sync';
import { stepNo } from '../analysis/format.ts';
import { ERROR_KINDS, type NameResult, type Percentile, type RunResult, type StepResult } from '../analysis/types.ts';
import { csvSafe } from './escape.ts';
import { nameOrder, namedSteps } from './names-text.ts';

export const STEPS_BY_NAME_CSV_COLUMNS = [
  'step',
  'attempt',
  'rate_per_sec',
  'name',
  'transaction',
  'completed_per_sec',
  'ok_per_sec',
  'error_rate',
  'p50_ms',
  'p50_n',
  'p50_reliable',
  'p90_ms',
  'p90_n',
  'p90_reliable',
  'p99_ms',
  'p99_n',
  'p99_reliable',
  ...ERROR_KINDS.map((k) => `errors_${k}`),
  // a mix entry (its rows of a step sum to the step's arrivals), or a request named inside a
  // transaction; empty where the run recorded no entries (an imported k6 run's names are requests)
  'entry',
] as const;

/** x rounded to `digits` decimals; empty cell for null. */
function num(x: number | null | undefined, digits: number): number | string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '';
  const scale = 10 ** digits;
  return Math.round(x * scale) / scale;
}

/** value, n and reliable of percentile q; empty cells when not computed. */
function percentileCells(latency: readonly Percentile[], q: number): (number | string)[] {
  const p = latency.find((x) => x.q === q);
  return p ? [num(p.valueMs, 3), p.n, String(p.reliable)] : ['', '', ''];
}

function nameRow(s: StepResult, name: string, r: NameResult, entries: ReadonlySet<string> | null): (number | string)[] {
  return [
    stepNo(s.index),
    s.attempt ?? 1,
    num(s.ratePerSec, 3),
    csvSafe(name),
    String(r.transaction === true),
    num(r.completedPerSec, 3),
    num(r.throughputPerSec, 3),
    num(r.errorRate, 6),
    ...percentileCells(r.latency, 50),
    ...percentileCells(r.latency, 90),
    ...percentileCells(r.latency, 99),
    ...ERROR_KINDS.map((k) => r.errors[k] ?? 0),
    entries === null ? '' : String(entries.has(name)),
  ];
}

/** The CSV, or null when no step has figures by name (then no file is written). */
export function renderStepsByNameCsv(run: RunResult): string | null {
  const steps = namedSteps(run);
  if (steps.length === 0) return null;
  const names = nameOrder(run);
  const listed = run.traffic?.entries ?? [];
  const entries = listed.length > 0 ? new Set(listed.map((e) => e.name)) : null;
  const rows = steps.flatMap((s) =>
    names.flatMap((name) => {
      const r = s.byName?.[name];
      return r ? [nameRow(s, name, r, entries)] : [];
    }),
  );
  return stringify(rows, { header: true, columns: [...STEPS_BY_NAME_CSV_COLUMNS] });
}
