/**
 * The stages `plateau plan` lists: the run's own list (analysis STAGE_NAMES), less those the run
 * will skip as the config says before anything is sent, and what the threads stage will do. Pure.
 */
import { STAGE_NAMES, type StageName } from '../analysis/types.ts';

/** Whether the threads stage sizes the steps' threads after the warmup (`of`: the threads started), or why all run. */
export type PlanThreads = { sizes: true; of: number } | { sizes: false; why: string };

/**
 * The stages a run of this plan goes through, in the run's order: those it will skip (no reset
 * hook, no warmup, threads not sized) left out, as run records them skipped; each left out has its
 * own line in the plan saying why.
 */
export function planStages(input: {
  resetRuns: boolean;
  warmup: { enabled: boolean };
  threads: PlanThreads;
}): StageName[] {
  const runs: Partial<Record<StageName, boolean>> = {
    reset: input.resetRuns,
    warmup: input.warmup.enabled,
    threads: input.threads.sizes,
  };
  return STAGE_NAMES.filter((name) => runs[name] !== false);
}

/**
 * What the threads stage will do (harness/pipeline/threads.ts), and that it takes no load: it
 * closes the threads the steps do not need, which takes milliseconds.
 */
export function threadsText(t: PlanThreads, topRatePerSec: number, unit: string): string {
  if (!t.sizes) return `not sized: ${t.why}`;
  return `after the warmup, the steps keep as few of the ${t.of} engine threads as its measured cost per arrival says ${topRatePerSec} ${unit} needs, the rest left to the target on this machine (all ${t.of} run if the warmup does not settle); no load, well under a second`;
}
