/**
 * summary.json: the RunResult itself, for machines (CI baselines, dashboards). `schemaVersion`
 * changes when a field changes meaning or disappears; adding a field does not bump it.
 */
import type { RunResult } from '../analysis/types.ts';

/** The exported shape of summary.json (schemaVersion 1). */
export type Summary = RunResult;

export const SUMMARY_SCHEMA_VERSION = 1;

/** Pretty JSON, schemaVersion first. Analysis never produces NaN or Infinity, so nothing turns into null. */
export function renderSummaryJson(run: RunResult): string {
  const summary: Summary = { ...run, schemaVersion: SUMMARY_SCHEMA_VERSION };
  const { schemaVersion, ...rest } = summary;
  return `${JSON.stringify({ schemaVersion, ...rest }, null, 2)}\n`;
}
