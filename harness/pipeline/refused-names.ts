/**
 * The failure of a stage in which plateau refused names the scenario sent, or in which the names
 * spread over the engine threads passed the run's limit together (the warmup's or a step's): the
 * run stops as a failed stage, its data and report kept, never read as a measured limit
 * (decision 028).
 */
import { NAME_FIX } from '../../analysis/names-limit.ts';
import { nameStopWhy } from '../../analysis/no-limit-stops.ts';
import type { StepResult } from '../../analysis/types.ts';
import { EXIT, PlateauError } from '../errors.ts';

/** The stage's error for what stopped it (StepResult's refusedNames or namesSpread); null if neither. */
export function refusedNamesError(
  where: string,
  stopped: Pick<StepResult, 'refusedNames' | 'namesSpread'>,
): PlateauError | null {
  const why = nameStopWhy(stopped);
  if (why === null) return null;
  // the fix once, as the error's own (the reason's text for the report ends with it)
  const own = `; ${NAME_FIX}`;
  const message = why.endsWith(own) ? why.slice(0, -own.length) : why;
  return new PlateauError(`${where}: ${message}`, NAME_FIX, 'scenario-failed', EXIT.stage);
}
