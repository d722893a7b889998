/**
 * A topology that changed between steps: no step read a change inside it (none is contaminated),
 * but steps 1-3 read 3 replicas and steps 4-5 read 4, an access layer scaled out between them. The
 * knee and the lower steps then measured different systems: a capacity read at 4 replicas, while
 * the lower steps ran at 3, is not one system's.
 */
import type { StepResult, Symptom } from './types.ts';
import { heldAndCounts } from './deciding-steps.ts';

/** The last topology value the warmup phase read, or null (no probe, no warmup, no reading). */
export function warmupTopology(
  samples: readonly { phase: string; tS: number; topology?: number | null }[],
  phase: string,
): number | null {
  let last: { tS: number; topology: number } | null = null;
  for (const s of samples)
    if (s.phase === phase && typeof s.topology === 'number' && (last === null || s.tS >= last.tS))
      last = { tS: s.tS, topology: s.topology };
  return last?.topology ?? null;
}

/**
 * One warning where the attempts that read a steady topology (StepResult.topology), or the warmup's
 * last reading, read more than one value: figures `steps` and `counts` side by side (each attempt's
 * index and value, in run order), `warmup` (its value or null), and, where the knee's attempt read
 * another value than a held step below it, `kneeStep`, `kneeCount` (the capacity's topology) and
 * `belowCounts` (the other values the held steps below it read).
 */
export function topologyAcrossSteps(
  steps: readonly StepResult[],
  warmup: number | null,
  kneeStep: number | null,
): Symptom[] {
  const read = steps.filter((s): s is StepResult & { topology: number } => s.topology !== undefined);
  const values = new Set([...read.map((s) => s.topology), ...(warmup === null ? [] : [warmup])]);
  if (values.size < 2) return [];
  const knee = read.find((s) => s.index === kneeStep && heldAndCounts(s));
  const below = knee === undefined ? [] : read.filter((s) => s.index < knee.index && heldAndCounts(s));
  const belowCounts = [...new Set(below.map((s) => s.topology))].filter((c) => c !== knee?.topology);
  return [
    {
      code: 'topology-across-steps',
      step: null,
      figures: {
        steps: read.map((s) => s.index),
        counts: read.map((s) => s.topology),
        warmup,
        ...(knee !== undefined && belowCounts.length > 0
          ? { kneeStep: knee.index, kneeCount: knee.topology, belowCounts }
          : {}),
      },
    },
  ];
}
