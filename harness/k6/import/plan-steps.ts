/**
 * An import's plan: the step flags, all of them or none (the plan as k6 ran it), or else the steps
 * derived from the file's offered rate (derive-steps.ts); refused with the fix where neither can be had.
 */
import path from 'node:path';
import type { BucketRecord } from '../../../analysis/types.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import { deriveSteps } from './derive-steps.ts';
import type { OfferedPhases } from '../output/offered.ts';
import { HELD_STAGES_FIX } from './continuous-ramp.ts';
import { CLOSED_MODEL_FIX, closedModelText, type ClosedModel } from './closed-model.ts';
import type { ImportOptions, ImportOutput } from './import-options.ts';

/** The step flags an import takes all of, or none: the plan as k6 ran it. */
const STEP_FLAGS = [
  ['startPerSec', '--start-rate'],
  ['stepPerSec', '--step-rate'],
  ['maxPerSec', '--max-rate'],
  ['rampS', '--ramp'],
  ['holdS', '--hold'],
] as const;

/** The plan of the import: its steps, where they came from, and what the user is told about them. */
export function planSteps(
  o: ImportOptions,
  records: readonly BucketRecord[],
  offered: readonly number[],
  wholeSeconds: boolean,
  closed: ClosedModel | null,
  /** With several scenarios: how to keep one (their sum may be what no plan fits). */
  oneScenario: string | undefined,
  /** With whole-second timestamps, where the offered arrivals' spans lie (IngestStats.offeredPhases). */
  phases?: OfferedPhases,
): {
  steps: Record<string, number | undefined>;
  stepsFrom: ImportOutput['stepsFrom'];
  notes: string[];
  /** Arrivals offered after the last derived step's hold, not judged. */
  afterNote?: string;
} {
  const s = o.steps;
  const given = [s.startPerSec, s.stepPerSec, s.maxPerSec, s.rampS, s.holdS].some((v) => v !== undefined);
  const file = path.basename(o.file);
  const missing = STEP_FLAGS.filter(([k]) => s[k] === undefined).map(([, flag]) => flag);
  if (given && missing.length > 0)
    throw new PlateauError(
      `the import takes the whole plan or none: ${STEP_FLAGS.filter(([k]) => s[k] !== undefined)
        .map(([, flag]) => flag)
        .join(', ')} given without ${missing.join(', ')}`,
      `give ${missing.join(', ')} too, as the k6 script ran (its ramping-arrival-rate stages), or drop the step flags to derive the plan from the file`,
      'k6-steps-partial',
      EXIT.usage,
    );
  if (given)
    return {
      steps: { ...s },
      stepsFrom: 'flags',
      notes: closed
        ? [
            `${closedModelText(file, closed)}: the steps are the flags' rates, which the run was never offered; its capacity is not established`,
          ]
        : [],
    };
  if (closed) throw new PlateauError(closedModelText(file, closed), CLOSED_MODEL_FIX, 'k6-closed-model', EXIT.usage);
  const d = deriveSteps(records, offered, wholeSeconds, phases);
  if (!d.steps) {
    throw new PlateauError(
      `cannot derive the steps of ${o.file}: ${d.why}`,
      d.flat
        ? `${oneScenario ? `${oneScenario}; ` : ''}plateau judges a run of rising steps: run k6 again with a ramping-arrival-rate scenario whose stages rise in steps (plateau k6-script writes one from a plateau config); or, if this run was one step of such a plan, give it with the step flags (--start-rate, --step-rate, --max-rate, --ramp, --hold) to judge that step`
        : d.ramp
          ? `${oneScenario ? `${oneScenario}; or ` : ''}${HELD_STAGES_FIX}`
          : `${oneScenario ? `${oneScenario}; or ` : ''}give the plan: --start-rate, --step-rate, --max-rate, --ramp and --hold (seconds), as the k6 script ran it${
              d.uneven
                ? ". plateau judges steps of one size, each with its ramp and hold (its capture compares each step's gain with the same rate added); a run of steps of other sizes cannot be judged as steps: run the load again in even steps (plateau k6-script writes such a script from a plateau config)"
                : ''
            }`,
      'k6-steps-unknown',
      EXIT.usage,
    );
  }
  const afterNote =
    d.after.seconds > 2
      ? `${path.basename(o.file)} offered ${d.after.arrivals.toLocaleString('en-US')} arrivals over ${d.after.seconds} s after the last derived step's hold ended (at ${d.after.fromS} s): a step cut before 3 s of its hold, or a ramp down, not judged; give the step flags (--start-rate ... --hold) to judge a plan of your own`
      : undefined;
  return { steps: { ...d.steps, settleS: s.settleS }, stepsFrom: 'derived', notes: [], afterNote };
}
