/**
 * The shell's side of `plateau plan`'s text: gathers from the config what the pure renderer
 * (reports/plan-text.ts) shows, the warmup's rate and the engine's own lines included.
 */
import type { Plan } from '../../analysis/plan.ts';
import { planText as renderPlanText, type PlanTextResetHook } from '../../reports/plan-text.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { engineKind } from '../engine/create.ts';
import { warmupRatePerSec } from '../pipeline/warmup.ts';

export function resetHook(h: PlateauConfig['reset']['hooks'][number]): PlanTextResetHook {
  if (h.kind === 'command') return { kind: 'command', run: h.run };
  if (h.kind === 'http') return { kind: 'http', method: h.method, url: h.url };
  return { kind: 'sql', database: h.database, statements: h.statements.length, tables: h.guard.tables };
}

export function planText(config: PlateauConfig, plan: Plan, scenario?: string): string {
  return renderPlanText({
    plan,
    steps: config.steps,
    warmup: { ...config.warmup, ratePerSec: warmupRatePerSec({ config }) },
    reset: config.reset.hooks.map(resetHook),
    scenario,
    engineLines: engineKind(config).planLines(),
  });
}
