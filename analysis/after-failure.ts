/**
 * What to do after the first attempt at a rate failed: confirm it at the same rate, rerun it with
 * more VUs, or stop (and why).
 */
import type { FailureClass } from './verdicts.ts';

export interface FailurePolicy {
  confirmFailedStep: boolean;
  rerunContaminated: boolean;
  maxVUs: number;
  maxVUsBound: number;
  /** An imported k6 run: its fixes are the k6 script's (Rules.imported). */
  imported?: boolean;
}

export type AfterFailure =
  | { action: 'rerun'; why: string; maxVUs: number; generatorBound: boolean; contaminated: boolean }
  | { action: 'stop'; why: string; generatorBound: boolean; contaminated: boolean };

/**
 * What to do after the first attempt at a rate failed (or held while the topology changed). A
 * topology change inside the step: rerun, whatever else it showed. Generator-bound with dropped
 * arrivals, or dropped arrivals with no step held before to judge by: raise maxVUs (x2, within
 * the bound) and rerun; generator-bound otherwise: stop, it is not capacity. Otherwise confirm
 * once at the same rate. A second failed attempt always stops.
 */
export function afterFailure(
  cls: FailureClass,
  contaminated: boolean,
  attempt: number,
  p: FailurePolicy,
): AfterFailure {
  const flags = { generatorBound: cls.generatorBound, contaminated };
  if (attempt > 1) return { action: 'stop', why: `attempt ${attempt} at this rate failed too`, ...flags };
  const moreVUs = cls.needsVUs && p.maxVUs < p.maxVUsBound ? Math.min(p.maxVUsBound, p.maxVUs * 2) : null;
  const withVUs = moreVUs === null ? '' : ` with maxVUs ${p.maxVUs} -> ${moreVUs}`;
  // The topology changed under the step (it may even have held): nothing it showed decides.
  if (contaminated && p.rerunContaminated)
    return {
      action: 'rerun',
      why: `the topology changed during the step; rerunning it${withVUs}`,
      maxVUs: moreVUs ?? p.maxVUs,
      ...flags,
      generatorBound: false,
    };
  // No baseline to judge by: more VUs cannot hurt the judgement of the rerun
  if (cls.inconclusive && moreVUs !== null)
    return { action: 'rerun', why: `${cls.detail}; rerunning${withVUs}`, maxVUs: moreVUs, ...flags };
  if (cls.generatorBound) {
    if (moreVUs !== null)
      return { action: 'rerun', why: `${cls.detail}; rerunning${withVUs}`, maxVUs: moreVUs, ...flags };
    const remedy = cls.needsVUs
      ? p.imported
        ? "raise the k6 scenario's maxVUs and run it again"
        : p.maxVUs > p.maxVUsBound
          ? // sized past the bound by Little's law (the rerun never lowers it): the bound is not what stopped it
            `maxVUs ${p.maxVUs} is past its bound ${p.maxVUsBound} already: raise verdicts.maxVUsBound above it (limits.maxInFlight caps both)`
          : `maxVUs is at its bound ${p.maxVUsBound}: raise verdicts.maxVUsBound`
      : 'the generator is short of CPU: run it on a bigger or closer machine, or split the load over several (execution segments)';
    return { action: 'stop', why: `${cls.detail}; ${remedy}`, ...flags };
  }
  if (p.confirmFailedStep)
    return { action: 'rerun', why: 'confirming the failure once at the same rate', maxVUs: p.maxVUs, ...flags };
  return { action: 'stop', why: cls.detail, ...flags };
}
