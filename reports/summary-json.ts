/**
 * summary.json: the RunResult itself, for machines (CI baselines, dashboards). `schemaVersion`
 * changes when a field changes meaning or disappears; adding a field does not bump it.
 */
import type { RunResult } from '../analysis/types.ts';
import { warningText } from './warning-text.ts';

/**
 * The exported shape of summary.json (schemaVersion 2: capacityPerSec is null unless the run
 * established it, heldAtLeastPerSec says what it held; 1 printed the knee's throughput as capacity
 * whatever stopped the run). A generator figure the engine does not measure is null: a step's
 * `loopDelayMaxMs` under k6 since 2026-12-06 (it read 0), within schema 2 (docs/decisions/047).
 * A stage's `status` is pass, warn, fail, skipped or interrupted: `warn` (since 2026-12-07, within
 * schema 2) is a warmup that ran its course without the target settling, which read pass
 * (its `warmup.stable` false says the same in both; docs/decisions/056). A cross-check's `verdict`
 * may read `client-timeouts` (since 2026-12-07, within schema 2): a server short of the client by
 * no more than the requests the client timed out itself, which read `traffic-missing` (decision 059).
 */
export type Summary = RunResult;

export const SUMMARY_SCHEMA_VERSION = 2;

/**
 * Pretty JSON, schemaVersion first. Analysis never produces NaN or Infinity, so nothing turns into
 * null. Each warning keeps its code, step and figures (what a machine reads) and gets its `text`.
 */
export function renderSummaryJson(run: RunResult): string {
  const warnings = run.warnings.map((w) => ({ ...w, text: warningText(w, run) }));
  const summary: Summary = { ...run, warnings, schemaVersion: SUMMARY_SCHEMA_VERSION };
  const { schemaVersion, ...rest } = summary;
  return `${JSON.stringify({ schemaVersion, ...rest }, null, 2)}\n`;
}
