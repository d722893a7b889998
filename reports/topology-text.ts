/**
 * A topology that changed between steps, in words (analysis/topology-across.ts makes the value):
 * the steps at each value, and where the capacity's step read another value than a held step
 * below it, that the knee compares different systems, with the fix.
 */
import { fmtInt, stepList, stepNo } from '../analysis/format.ts';
import type { RunResult, Symptom } from '../analysis/types.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import { TOPOLOGY_FIX } from '../analysis/topology-unsteady.ts';

/** "3 at steps 1-3, as at the warmup's end; 4 at steps 4 and 5": each value with where it was read, in the order first read. */
function valuesRead(steps: readonly number[], counts: readonly number[], warmup: number | null): string {
  const at = new Map<number, number[]>();
  if (warmup !== null) at.set(warmup, []);
  counts.forEach((c, i) => at.set(c, [...(at.get(c) ?? []), steps[i]]));
  return [...at]
    .map(([count, where]) => {
      const warm = count === warmup ? "the warmup's end" : '';
      if (where.length === 0) return `${fmtInt(count)} at ${warm}`;
      const named = `${new Set(where).size === 1 ? 'step' : 'steps'} ${stepList(where)}`;
      return `${fmtInt(count)} at ${named}${warm === '' ? '' : `, as at ${warm}`}`;
    })
    .join('; ');
}

/** The 'topology-across-steps' warning in words. */
export function topologyAcrossText(w: Symptom): string {
  const steps = (w.figures.steps ?? []) as number[];
  const counts = (w.figures.counts ?? []) as number[];
  const warmup = typeof w.figures.warmup === 'number' ? w.figures.warmup : null;
  const head = `the topology probe read different values in the steps that held still (${valuesRead(steps, counts, warmup)}): each measured one system, but not the same one`;
  if (typeof w.figures.kneeStep !== 'number' || typeof w.figures.kneeCount !== 'number')
    return `${head}; ${TOPOLOGY_FIX}`;
  const below = (w.figures.belowCounts ?? []) as number[];
  return `${head}: the capacity's step ${stepNo(w.figures.kneeStep)} was measured at ${fmtInt(w.figures.kneeCount)}, held steps below it at ${below.map(fmtInt).join(' and ')}, so the knee compares different topologies and the capacity is not one system's; ${TOPOLOGY_FIX}`;
}

/** "; measured at a topology of 4, the probe's reading at step 5": the capacity's step's value, or "" where none was read. */
export function kneeTopologyClause(run: Pick<RunResult, 'steps' | 'kneeStep'>): string {
  const knee = kneeResult(run);
  return knee?.topology === undefined
    ? ''
    : `; measured at a topology of ${fmtInt(knee.topology)}, the probe's reading at step ${stepNo(knee.index)}`;
}
