/**
 * The failure of a stage in which plateau refused names the scenario sent (the warmup's or a
 * step's): those arrivals failed at plateau's hand, so the run stops as a failed stage, its data
 * and report kept, never read as a measured limit (decision 028).
 */
import { NAME_FIX } from '../../analysis/names-limit.ts';
import { refusedNamesWhy } from '../../analysis/no-limit-stops.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { EXIT, PlateauError } from '../errors.ts';

export function refusedNamesError(where: string, refused: NonNullable<BucketRecord['refusedNames']>): PlateauError {
  return new PlateauError(`${where}: ${refusedNamesWhy(refused)}`, NAME_FIX, 'scenario-failed', EXIT.stage);
}
