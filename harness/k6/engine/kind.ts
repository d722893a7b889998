/**
 * The k6 engine as the pipeline knows it before it starts: what it can do (k6 runs the plan in
 * its own process and schedules its own goroutines, so there is no warmup leg, no preconnect, no
 * thread sizing and no scheduler lag of plateau's own), the plan one instance runs under an
 * execution segment, the rerun bound k6 can honour, and its preflight.
 */
import type { PlateauConfig } from '../../config/schema.ts';
import { vusBound, type EngineCapabilities, type EngineKind, type EngineTraits } from '../../engine/load-engine.ts';
import { withK6Preflight } from './preflight.ts';
import { planForSegment, segmentLength, segmentVusBound } from './segment.ts';

export const K6_WARMUP_SKIPPED =
  "skipped with engine k6: k6 runs the plan in its own process, and the first step's ramp opens its connections";

const K6_CAPABILITIES: Readonly<EngineCapabilities> = Object.freeze({
  warmup: false,
  preconnect: false,
  threadSizing: false,
  schedulerLag: false,
  liveStop: true,
});

/** The words the run records when a stage is skipped for want of a capability. */
export const K6_TRAITS: EngineTraits = Object.freeze({
  capabilities: K6_CAPABILITIES,
  whyNot: Object.freeze({
    warmup: K6_WARMUP_SKIPPED,
    preconnect: "k6 opens its own connections, in the first step's ramp",
    threadSizing: 'k6 schedules its own goroutines',
    schedulerLag: 'k6 reports no scheduler lag: its dropped_iterations are the sign it fell behind',
  }),
});

export function k6Kind(config: PlateauConfig): EngineKind {
  return {
    ...K6_TRAITS,
    planForInstance: (plan) => planForSegment(plan, config),
    rerunVusBound: () => segmentVusBound(vusBound(config), config),
    planLines: () =>
      config.k6.executionSegment
        ? [
            `segment  k6 execution segment ${config.k6.executionSegment}: this instance runs ${(segmentLength(config.k6.executionSegment) * 100).toFixed(1)}% of every rate below`,
          ]
        : [],
    preflight: (env, base) => withK6Preflight(config, env, base),
  };
}
