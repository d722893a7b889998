/**
 * The shell's side of `plateau plan`'s text: gathers from the config what the pure renderer
 * (reports/plan-text.ts) shows, the warmup's rate and the engine's own lines included.
 */
import path from 'node:path';
import { vusGiven, type Plan } from '../../analysis/plan.ts';
import {
  planText as renderPlanText,
  type PlanFacts,
  type PlanTextInput,
  type PlanTextResetHook,
} from '../../reports/plan-text.ts';
import type { PlanThreads } from '../../reports/plan-stages.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { engineKind, workerCount } from '../engine/create.ts';
import { maxArrivalsWithReruns, warmupRatePerSec, warmupRuns } from '../pipeline/warmup.ts';
import { resetsOrProbes } from '../pipeline/reset.ts';
import { keepAllReason } from '../pipeline/threads.ts';
import type { LoadedSource } from '../scenario/context.ts';
import { rowsTaken, type Traffic } from '../scenario/traffic.ts';

function resetHook(h: PlateauConfig['reset']['hooks'][number]): PlanTextResetHook {
  if (h.kind === 'command') return { kind: 'command', run: h.run };
  if (h.kind === 'http') return { kind: 'http', method: h.method, url: h.url };
  return {
    kind: 'sql',
    database: h.database ?? `${h.driver} at $${h.urlEnv}`,
    statements: h.statements.length,
    tables: h.guard.tables,
  };
}

/**
 * Whether the steps stage raises the VUs from the warmup's time per arrival: only where one runs
 * and the config (or --vus, --max-vus) does not give both counts (a given one is kept, the other
 * raised).
 */
export function vusFromWarmup(config: PlateauConfig): boolean {
  return config.engine !== 'k6' && config.warmup.enabled && vusGiven(config.vus) !== 'both';
}

/**
 * What the threads stage will do, as run decides it (threads.ts keepAllReason) from what is known
 * before load: the engine, its threads, workers, where the target is, whether a warmup runs. Only
 * whether the warmup settles is not: assumed here, and the line says all run where it does not.
 */
export function planThreads(config: PlateauConfig): PlanThreads {
  const threads = workerCount(config.workers);
  const why = keepAllReason(
    { config },
    { ...engineKind(config), instances: threads },
    warmupRuns(config) ? { stable: true } : null,
  );
  return why === null ? { sizes: true, of: threads } : { sizes: false, why };
}

/** What every rendering of the plan shows, gathered once from the config (and the scenario's loaded data sources). */
export function planFacts(
  config: PlateauConfig,
  plan: Plan,
  data: Record<string, LoadedSource> = {},
  traffic: Pick<Traffic, 'entries'> = { entries: [] },
): PlanFacts {
  const maxArrivals = maxArrivalsWithReruns(config, plan);
  return {
    plan,
    steps: config.steps,
    // enabled where one runs: the k6 engine has none, as run says (its warmup stage skipped)
    warmup: { ...config.warmup, enabled: warmupRuns(config), ratePerSec: warmupRatePerSec({ config }) },
    reset: config.reset.hooks.map(resetHook),
    resetRuns: resetsOrProbes(config),
    threads: planThreads(config),
    vusFromWarmup: vusFromWarmup(config),
    vusGiven: vusGiven(config.vus),
    // measured only by preflight's sample arrivals: run.ts sizes the VUs from them, preflight refuses a settle they outlast
    transactions: traffic.entries.filter((e) => e.run !== undefined).map((e) => e.name),
    transactionTimeoutMs: config.http.transactionTimeoutMs,
    maxDurationS: config.limits.maxDurationS,
    ...(config.metrics
      ? {
          metrics: {
            url: config.metrics.url ?? null,
            prometheus: config.metrics.prometheus?.url ?? null,
            preset: config.metrics.requests?.preset ?? null,
            downstreams: (config.metrics.downstreams ?? []).map((d) => d.name),
            pool: config.metrics.pool !== undefined,
          },
        }
      : {}),
    ...(config.slo ? { slo: config.slo } : {}),
    data: Object.entries(data).map(([name, src]) => ({
      name,
      file: path.relative(process.cwd(), src.file) || src.file,
      rows: src.rows.length,
      usable: src.usable,
      order: src.order,
      maxArrivals,
      withWarmup: warmupRuns(config),
      ...(src.readBy ? { readBy: [...src.readBy], readerArrivals: rowsTaken(traffic, src.readBy, maxArrivals) } : {}),
      ...(src.seed !== undefined ? { seed: src.seed } : {}),
    })),
  };
}

export function planText(
  config: PlateauConfig,
  plan: Plan,
  scenario?: string,
  data: Record<string, LoadedSource> = {},
  entries?: PlanTextInput['entries'],
  traffic?: Pick<Traffic, 'entries'>,
  secretsNotSet: string[] = [],
): string {
  return renderPlanText({
    ...planFacts(config, plan, data, traffic),
    scenario,
    engineLines: engineKind(config).planLines(),
    entries,
    secretsNotSet,
  });
}
