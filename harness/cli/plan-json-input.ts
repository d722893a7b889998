/** What `plateau plan --json` renders (reports/plan-json.ts), gathered from the config and the plan. */
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../../analysis/plan.ts';
import { segmentLength } from '../../analysis/segment.ts';
import type { PlanJsonInput, PlanTraffic } from '../../reports/plan-json.ts';
import { planFacts } from './plan-text.ts';
import type { LoadedSource } from '../scenario/context.ts';
import type { Traffic } from '../scenario/traffic.ts';

export function planJsonInput(
  config: PlateauConfig,
  plan: Plan,
  scenario: { name: string; module: string } | null,
  data: Record<string, LoadedSource> = {},
  traffic: PlanTraffic | null = null,
  entries: Pick<Traffic, 'entries'> = { entries: [] },
): PlanJsonInput {
  const segment = config.engine === 'k6' ? (config.k6.executionSegment ?? null) : null;
  return {
    ...planFacts(config, plan, data, entries),
    scenario,
    traffic,
    engine: {
      kind: config.engine,
      executionSegment: segment,
      segmentShare: segment === null ? null : segmentLength(segment),
    },
  };
}
