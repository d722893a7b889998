/**
 * Cell texts shared by the renderers, so a figure reads the same in every format.
 */
import { fmtInt, fmtMs, fmtRate, stepNo } from '../analysis/format.ts';
import type { Percentile, RunResult, StepResult } from '../analysis/types.ts';

/** "12.3 ms (n=4,512)"; an unreliable one "~12.3 ms* (n=312)"; "–" when empty. */
export function percentileCell(p: Percentile | undefined): string {
  if (!p || p.valueMs === null) return '–';
  return p.reliable ? `${fmtMs(p.valueMs)} ms (n=${fmtInt(p.n)})` : `~${fmtMs(p.valueMs)} ms* (n=${fmtInt(p.n)})`;
}

/** The step's percentile q, if computed. */
export function percentileOf(s: StepResult, q: number): Percentile | undefined {
  return s.latency.find((p) => p.q === q);
}

/** True when any shown percentile of any step is unreliable (the report then adds a footnote). */
export function anyUnreliable(run: RunResult): boolean {
  return run.steps.some((s) => s.latency.some((p) => p.valueMs !== null && !p.reliable));
}

/** "400.0 req/s (step 3)" or a sentence saying none was established. */
export function capacityText(run: RunResult): string {
  if (run.capacityPerSec === null) return 'not established: no step held';
  return `${fmtRate(run.capacityPerSec)} req/s (step ${run.kneeStep === null ? '?' : stepNo(run.kneeStep)})`;
}

/** "1,234.5 req/s (step 5)" or "–" without data. */
export function peakText(run: RunResult): string {
  return run.peakStep === null ? '–' : `${fmtRate(run.peakPerSec)} req/s (step ${stepNo(run.peakStep)})`;
}

/** "http_5xx 4,500, timeout 3" (empty string when none). */
export function countsText(counts: Partial<Record<string, number>> | undefined): string {
  return Object.entries(counts ?? {})
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k} ${fmtInt(n ?? 0)}`)
    .join(', ');
}
