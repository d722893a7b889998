/**
 * The models section of a run, from its judged steps: Little's law per step, a USL fit to the
 * (N, X) pairs it yields, and utilisation with its queueing amplification. Pure.
 */
import { stepNo } from '../format.ts';
import type { Models, StepResult } from '../types.ts';
import { littleRows } from './little.ts';
import { fitUsl, uslFitRows } from './usl.ts';
import { saturationPerSec, utilisationRows } from './utilisation.ts';

export function modelsOf(
  steps: readonly StepResult[],
  capacityPerSec: number | null,
  kneeStep: number | null,
  peakPerSec: number,
  entryNames: readonly string[] = [],
  /** A step failed at the target past the knee (the capacity established): μ is the saturation throughput, not a floor of it. */
  limitFound = true,
): Models {
  const little = littleRows(steps, entryNames);
  // only the steps up to the knee: past it N counts a queue (usl.ts uslFitRows)
  const { fit, note } =
    kneeStep === null
      ? { fit: null, note: 'not fitted: no step held, so there is no knee to fit up to' }
      : fitUsl(
          uslFitRows(little, kneeStep).map((r) => ({
            concurrency: r.concurrency,
            throughputPerSec: r.throughputPerSec,
          })),
          `steps up to and including ${limitFound ? 'the knee' : 'the last one held'} (step ${stepNo(kneeStep)}; N from Little's law)`,
        );
  const mu = saturationPerSec(capacityPerSec, peakPerSec);
  return {
    little,
    usl: fit,
    uslNote: note,
    utilisationBasePerSec: mu,
    ...(mu !== null && !limitFound ? { utilisationBaseAtLeast: true as const } : {}),
    utilisation: utilisationRows(little, mu, kneeStep),
    ...(entryNames.length > 0 ? { wPerArrival: true } : {}),
  };
}
