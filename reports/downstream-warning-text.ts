/**
 * The downstream warnings in words (analysis/downstreams.ts makes them): a fan-out that moved
 * between holding steps, a hot shard. Each names the step, the figures and what to do.
 */
import { fmtFanOut, fmtOps } from '../analysis/downstream-evidence.ts';
import { fmtShare, stepNo } from '../analysis/format.ts';
import type { Symptom } from '../analysis/types.ts';

export function downstreamWarningText(w: Symptom): string {
  const f = w.figures;
  const n = stepNo(w.step ?? 0);
  const num = (k: string) => f[k] as number;
  if (w.code === 'downstream-fan-out')
    return `${f.name}: ops per request moved from ${fmtFanOut(num('fromOpsPerRequest'))} at step ${stepNo(num('fromStep'))} to ${fmtFanOut(num('toOpsPerRequest'))} at step ${n}, more than ${fmtShare(num('changeShare'))} between holding steps (a cache warming, retries, another code path): each step's ops/s rests on its own fan-out, so the downstream's ceiling in req/s moves with it; warm the target longer, or find what changed the calls per request`;
  const head = `${f.name}: at step ${n}, ${f.splitBy} ${f.value} carried ${fmtShare(num('share'))} of the ops, ${num('factor').toFixed(1)}x the mean of its ${num('values')} values (over ${num('bound')}x): a hot shard`;
  if (f.grewAlone === true)
    return `${head}; its ops grew from ${fmtOps(num('fromPerSec'))} to ${fmtOps(num('toPerSec'))} ops/s since step ${stepNo(num('fromStep'))} while the others stayed flat: the same key hashed to one slot, which adding shards cannot spread; split or cache that key`;
  return `${head}; spread the keys more evenly (or check how they hash) before adding shards, or that one carries the ceiling`;
}
