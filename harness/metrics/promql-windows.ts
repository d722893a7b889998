/**
 * After the steps: every executed step's steady window read through a Prometheus server's HTTP
 * API (promql.ts), for users who already scrape their service. Done once the last step is over
 * and Prometheus has scraped past its end; the report prefers these windows to direct readings.
 */
import type { PromqlWindow, StepPlan } from '../../analysis/types.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { queryWindow } from './promql.ts';
import { promqlDownstreams } from './promql-downstreams.ts';

export async function promqlWindows(
  config: PlateauConfig,
  executed: readonly (StepPlan & { attempt?: number })[],
  t0EpochMs: number,
): Promise<{ windows: PromqlWindow[]; errors: string[] }> {
  const m = config.metrics;
  if (!m?.prometheus) return { windows: [], errors: [] };
  await new Promise((r) => setTimeout(r, m.prometheus!.settleS * 1000));
  const windows: PromqlWindow[] = [];
  const errors: string[] = [];
  for (const step of executed) {
    try {
      const window = await queryWindow({
        prometheusUrl: m.prometheus.url,
        requests: m.requests,
        pool: m.pool,
        fromMs: t0EpochMs + step.steadyStartS * 1000,
        toMs: t0EpochMs + step.steadyEndS * 1000,
        t0EpochMs,
      });
      windows.push({
        index: step.index,
        attempt: step.attempt ?? 1,
        window,
        ...(await promqlDownstreams(m, t0EpochMs, step)),
      });
    } catch (err) {
      errors.push(`step ${step.index + 1}: ${(err as Error).message}`);
    }
  }
  return { windows, errors };
}
