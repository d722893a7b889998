/**
 * The baseline's knee step seen from a run whose knee sits one step lower: the throughput the run
 * achieved at the baseline's knee rate, the step it failed. A knee step at the target's limit (its
 * capture near the rule's 0.60) holds in one run and fails in the next of the same build: three
 * runs of one unchanged target read 349.7, 380.3 and 386.7 req/s on steps of 50, the first having
 * served 374.3 req/s at the 400 the others held. The knees then differ by a whole step, more than
 * any tolerance below the step, while the throughput at equal offered rates differs by the noise
 * (decision 090). Pure.
 */
import { GRID_TOLERANCE } from '../compare/differences.ts';
import { NAME_REGRESSION_THRESHOLDS } from '../compare/by-name.ts';
import type { RunResult, StepResult } from '../types.ts';

type Flagged = StepResult & { generatorBound?: boolean; contaminated?: boolean };

/**
 * The lowest throughput of the run's attempts at the baseline's knee rate, when that rate is the
 * run's first that did not hold (its knee one step below the baseline's) and no attempt there
 * failed more requests than the baseline's knee step plus the per-name error floor (1 point: new
 * failures are a change a throughput within the tolerance must not hide). Null otherwise.
 */
export function throughputAtBaselineKnee(run: RunResult, baseline: RunResult, stepPerSec: number): number | null {
  const baseKnee = baseline.steps.find((s) => s.index === baseline.kneeStep && s.verdict === 'holds');
  const runKnee = run.steps.find((s) => s.index === run.kneeStep && s.verdict === 'holds');
  if (!baseKnee || !runKnee) return null;
  const near = (a: number, b: number) => Math.abs(a - b) <= stepPerSec * GRID_TOLERANCE;
  if (!near(baseKnee.ratePerSec - runKnee.ratePerSec, stepPerSec)) return null;
  const attempts = (run.steps as Flagged[]).filter(
    (s) => near(s.ratePerSec, baseKnee.ratePerSec) && !s.contaminated && !s.generatorBound,
  );
  if (attempts.length === 0 || attempts.some((s) => s.verdict === 'holds')) return null;
  const errorCeiling = baseKnee.errorRate + NAME_REGRESSION_THRESHOLDS.errorRateFloor;
  if (attempts.some((s) => s.errorRate > errorCeiling)) return null;
  return Math.min(...attempts.map((s) => s.throughputPerSec));
}
