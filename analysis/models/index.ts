/**
 * The models section of a run, from its judged steps: Little's law per step, a USL fit to the
 * (N, X) pairs it yields, and utilisation with its queueing amplification. Pure.
 */
import type { Models, StepResult } from '../types.ts';
import { littleRows } from './little.ts';
import { fitUsl } from './usl.ts';
import { saturationPerSec, utilisationRows } from './utilisation.ts';

export function modelsOf(
  steps: readonly StepResult[],
  capacityPerSec: number | null,
  kneeStep: number | null,
  peakPerSec: number,
): Models {
  const little = littleRows(steps);
  const { fit, note } = fitUsl(
    little.map((r) => ({ concurrency: r.concurrency, throughputPerSec: r.throughputPerSec })),
  );
  const mu = saturationPerSec(capacityPerSec, peakPerSec);
  return {
    little,
    usl: fit,
    uslNote: note,
    utilisationBasePerSec: mu,
    utilisation: utilisationRows(little, mu, kneeStep),
  };
}
