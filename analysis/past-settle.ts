/**
 * Transactions that lasted longer under load than their step settled before its window: an arrival
 * counts in the second it ends (docs/decisions/003), so the window counted arrivals made before it,
 * during the ramp or at the step below, and its delivery reads short of what the target carried.
 * Preflight refuses a plan whose settle its sample arrivals outlast (settle-check.ts); this is what
 * the load showed (an import has no preflight; a think time drawn at random may have been short in
 * the samples). A name is warned of where it outlasted the settle from its first step on: its own
 * length (think time), not a queue of the target's near its limit, whose longer transactions
 * are the overload itself (a step past the knee). One warning a name, its steps and its longest
 * median. Pure.
 */
import type { StepPlan, StepResult, Symptom } from './types.ts';
import { UNDER_LOAD } from './settle-check.ts';

export function pastSettle(
  steps: readonly StepResult[],
  plans: readonly Pick<StepPlan, 'index' | 'holdStartS' | 'steadyStartS'>[],
): Symptom[] {
  const by = new Map<string, { steps: number[]; p50Ms: number; settleS: number }>();
  /** Names seen in a step within its settle: their later lengths are the load's. */
  const fitted = new Set<string>();
  for (const s of [...steps].sort((a, b) => a.index - b.index || (a.attempt ?? 1) - (b.attempt ?? 1))) {
    const plan = plans.find((p) => p.index === s.index);
    if (!plan || !s.byName || s.verdict === 'not-run') continue;
    const settleS = plan.steadyStartS - plan.holdStartS;
    for (const [name, n] of Object.entries(s.byName)) {
      const p50 = n.transaction ? n.latency.find((p) => p.q === 50)?.valueMs : null;
      if (p50 === null || p50 === undefined || fitted.has(name)) continue;
      if (p50 <= settleS * 1000) {
        if (!by.has(name)) fitted.add(name);
        continue;
      }
      const w = by.get(name) ?? { steps: [], p50Ms: 0, settleS };
      if (!w.steps.includes(s.index)) w.steps.push(s.index);
      w.p50Ms = Math.max(w.p50Ms, p50);
      by.set(name, w);
    }
  }
  return [...by].map(([name, w]) => ({
    code: 'transaction-past-settle',
    step: null,
    figures: {
      name,
      steps: w.steps,
      p50Ms: w.p50Ms,
      settleS: w.settleS,
      settleToSet: Math.ceil((w.p50Ms / 1000) * UNDER_LOAD),
    },
  }));
}
