/**
 * The downstream warnings in words (analysis/downstreams.ts makes them): a fan-out that moved
 * between holding steps (or fell as a constant background makes it), a hot shard. Each names the step, the figures and what to do.
 */
import { fmtFanOut, fmtOps } from '../analysis/downstream-evidence.ts';
import { fmtShare, stepList, stepNo } from '../analysis/format.ts';
import type { Symptom } from '../analysis/types.ts';

export function downstreamWarningText(w: Symptom): string {
  const f = w.figures;
  const n = stepNo(w.step ?? 0);
  const num = (k: string) => f[k] as number;
  if (w.code === 'downstream-fan-out' && typeof f.backgroundOpsPerSec === 'number') return backgroundText(w);
  if (w.code === 'downstream-fan-out')
    return `${f.name}: ops per request moved from ${fmtFanOut(num('fromOpsPerRequest'))} at step ${stepNo(num('fromStep'))} to ${fmtFanOut(num('toOpsPerRequest'))} at step ${n}, more than ${fmtShare(num('changeShare'))} between holding steps (a cache warming, retries, another code path): each step's ops/s rests on its own fan-out, so the downstream's ceiling in req/s moves with it; warm the target longer, or find what changed the calls per request`;
  const head = `${f.name}: at step ${n}, ${f.splitBy} ${f.value} carried ${fmtShare(num('share'))} of the ops, ${num('factor').toFixed(1)}x the mean of its ${num('values')} values (over ${num('bound')}x): a hot shard`;
  if (f.grewAlone === true)
    return `${head}; its ops grew from ${fmtOps(num('fromPerSec'))} to ${fmtOps(num('toPerSec'))} ops/s since step ${stepNo(num('fromStep'))} while the others stayed flat: the same key hashed to one slot, which adding shards cannot spread; split or cache that key`;
  return `${head}; spread the keys more evenly (or check how they hash) before adding shards, or that one carries the ceiling`;
}

/**
 * A fan-out that fell as the rate rose, as a constant background would make it (analysis/downstream-background.ts):
 * the line's figures, and the service's own calls per request read from its slope.
 */
function backgroundText(w: Symptom): string {
  const f = w.figures;
  const num = (k: string) => f[k] as number;
  const steps = f.fitSteps as number[];
  return `${f.name}: ops per request fell from ${fmtFanOut(num('fromOpsPerRequest'))} at step ${stepNo(num('fromStep'))} to ${fmtFanOut(num('toOpsPerRequest'))} at step ${stepNo(w.step ?? 0)} as the rate rose, as ops ${f.name} does besides the service's requests make it (an exporter's own commands on each scrape, other clients): over ${steps.length === 2 ? 'both' : 'the'} held steps ${stepList(steps)} its ops/s = ${fmtOps(num('backgroundOpsPerSec'))} + ${fmtFanOut(num('opsPerRequest'))} x req/s, so the service's own calls are about ${fmtFanOut(num('opsPerRequest'))} per request and the Ops per request column counts the ${fmtOps(num('backgroundOpsPerSec'))} ops/s too; where nothing else calls ${f.name}, a cache warming or another code path would be the cause instead`;
}
