/**
 * After the steps: every executed step's steady window read through a Prometheus server's HTTP
 * API (promql.ts), for users who already scrape their service. Done once the last step is over
 * and Prometheus has scraped past its end; the report uses them where the direct readings read no rate (decision 067).
 */
import type { PromqlWindow, ServerWindow, StepPlan } from '../../analysis/types.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { emptyWindow, problemOf, queryWindow } from './promql.ts';
import { promqlDownstreams } from './promql-downstreams.ts';

type Metrics = NonNullable<PlateauConfig['metrics']>;

/**
 * Each name metrics.requests.routes maps, its route's window: the request series with the route
 * label added to its labels (the pool is the target's, not the route's: not read). A route the
 * series does not carry reads no requests, and its cross-check says there is no data.
 */
export async function routeWindows(
  m: Metrics,
  step: Pick<StepPlan, 'steadyStartS' | 'steadyEndS'>,
  t0EpochMs: number,
): Promise<Pick<PromqlWindow, 'routes'>> {
  const { routeLabel, routes } = m.requests;
  if (!m.prometheus || !routeLabel || !routes || Object.keys(routes).length === 0) return {};
  const out: Record<string, ServerWindow> = {};
  for (const [name, route] of Object.entries(routes)) {
    out[name] = await windowOrProblem(step, {
      prometheusUrl: m.prometheus.url,
      requests: { ...m.requests, labels: { ...m.requests.labels, [routeLabel]: route } },
      fromMs: t0EpochMs + step.steadyStartS * 1000,
      toMs: t0EpochMs + step.steadyEndS * 1000,
      t0EpochMs,
      fields: `metrics.requests.routes["${name}"] (the ${routeLabel} value as the target labels it, or a route with no traffic)`,
    });
  }
  return { routes: out };
}

/**
 * The window through PromQL, or, where the query failed, an empty one whose problem says why: the
 * report shows it beside the direct readings it falls back to, rather than a window left out in
 * silence (a Prometheus stopped after preflight read every downstream as 'no figures', unexplained).
 */
async function windowOrProblem(
  step: Pick<StepPlan, 'steadyStartS' | 'steadyEndS'>,
  o: Parameters<typeof queryWindow>[0],
  failed?: (problem: string) => void,
): Promise<ServerWindow> {
  try {
    return await queryWindow(o);
  } catch (err) {
    failed?.(problemOf(err));
    return { ...emptyWindow(step.steadyStartS, step.steadyEndS), problems: [problemOf(err)] };
  }
}

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
    const window = await windowOrProblem(
      step,
      {
        prometheusUrl: m.prometheus.url,
        requests: m.requests,
        pool: m.pool,
        fromMs: t0EpochMs + step.steadyStartS * 1000,
        toMs: t0EpochMs + step.steadyEndS * 1000,
        t0EpochMs,
      },
      (problem) => errors.push(`step ${step.index + 1}: ${problem}`),
    );
    windows.push({
      index: step.index,
      attempt: step.attempt ?? 1,
      window,
      ...(await routeWindows(m, step, t0EpochMs)),
      ...(await promqlDownstreams(m, t0EpochMs, step)),
    });
  }
  return { windows, errors };
}
