/**
 * The shell's side of `plateau plan`'s text: gathers from the config what the pure renderer
 * (reports/plan-text.ts) shows, the warmup's rate and the engine's own lines included.
 */
import type { Plan } from '../../analysis/plan.ts';
import { planText as renderPlanText, type PlanFacts, type PlanTextResetHook } from '../../reports/plan-text.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { engineKind } from '../engine/create.ts';
import { warmupRatePerSec } from '../pipeline/warmup.ts';

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

/** What every rendering of the plan shows, gathered once from the config. */
export function planFacts(config: PlateauConfig, plan: Plan): PlanFacts {
  return {
    plan,
    steps: config.steps,
    warmup: { ...config.warmup, ratePerSec: warmupRatePerSec({ config }) },
    reset: config.reset.hooks.map(resetHook),
  };
}

export function planText(config: PlateauConfig, plan: Plan, scenario?: string): string {
  return renderPlanText({ ...planFacts(config, plan), scenario, engineLines: engineKind(config).planLines() });
}
