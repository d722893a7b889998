/**
 * Preflight, with metrics.prometheus: how often Prometheus scrapes the target's request series,
 * against the plan's steady window. A rate through PromQL needs two scrapes inside a window, and
 * Prometheus's default interval (15 s) is longer than most steady windows: the report then falls
 * back to the direct readings (metrics.url) or has no server figures. Said before the load, as a
 * note on the stage, never a refusal (the direct readings may be all the user wants).
 */
import type { PlateauConfig } from '../config/schema.ts';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import { settleSOf } from '../../analysis/plan.ts';
import { rawSamples, scrapeIntervalMs, selector } from '../metrics/promql.ts';

/** The note's words, or null when Prometheus scrapes at least twice a steady window. Pure. */
export function sparseScrapeNote(series: string, intervalMs: number | null, steadyS: number): string | null {
  if (intervalMs === null || intervalMs / 1000 <= steadyS / 2) return null;
  return `note: Prometheus scrapes ${series} every ${(intervalMs / 1000).toFixed(1)} s, and a steady window is ${steadyS} s: fewer than two scrapes fall in it, so the server's figures will come from the direct readings (metrics.url) or be missing; scrape the target at least every ${(steadyS / 2).toFixed(1)} s, or lengthen the hold`;
}

/** Reads the request series' last five minutes from Prometheus; null where it cannot tell (no samples, no answer). */
export async function checkScrapeInterval(config: PlateauConfig, nowMs = Date.now()): Promise<string | null> {
  const m = config.metrics;
  if (!m?.prometheus) return null;
  const r = requestSeriesOf(m.requests);
  const sel = selector(r.count, r.labels);
  const series = await rawSamples(m.prometheus.url, sel, nowMs - 300_000, nowMs).catch(() => null);
  if (series === null) return null;
  const steadyS = config.steps.holdS - settleSOf(config.steps);
  return sparseScrapeNote(sel, scrapeIntervalMs(series), steadyS);
}
