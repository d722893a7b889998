/** A topology that changed between steps, or never held still, in the headline's neighbourhood and the warnings. */
import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { RunResult, StepResult, Symptom } from '../analysis/types.ts';
import { unjudgeableReasons } from '../analysis/gate/judgeable.ts';
import { capacityText } from './headline-text.ts';
import { capacityCaveats, warningText } from './warning-text.ts';
import { renderMarkdown } from './markdown.ts';

const FIX =
  'pin the replica count for the test (disable the autoscaler, or set its min = max), or warm the access layer up to its scale before the run';

/** A plateau at step 3 of 4 (300 req/s), each step's topology as given. */
function plateau(counts: (number | undefined)[], warnings: Symptom[] = []): RunResult {
  const run = fakeRun({
    steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300 }, { ratePerSec: 400, okPerSec: 250 }],
  });
  const steps = run.steps.map((s, i): StepResult => (counts[i] === undefined ? s : { ...s, topology: counts[i] }));
  return { ...run, steps, warnings: [...run.warnings, ...warnings] };
}

const across = (figures: Symptom['figures']): Symptom => ({ code: 'topology-across-steps', step: null, figures });

describe('the topology between steps, in words', () => {
  it('names the steps at each value, the warmup, and where the knee compares topologies, says so with the fix', () => {
    const w = across({
      steps: [0, 1, 2, 3],
      counts: [3, 3, 4, 4],
      warmup: 3,
      kneeStep: 2,
      kneeCount: 4,
      belowCounts: [3],
    });
    const run = plateau([3, 3, 4, 4], [w]);
    expect(warningText(w, run)).toBe(
      `the topology probe read different values in the steps that held still (3 at steps 1 and 2, as at the warmup's end; 4 at steps 3 and 4): each measured one system, but not the same one: the capacity's step 3 was measured at 4, held steps below it at 3, so the knee compares different topologies and the capacity is not one system's; ${FIX}`,
    );
    expect(capacityCaveats(run)).toEqual([warningText(w, run)]);
    expect(renderMarkdown(run)).toContain(`> **But** ${warningText(w, run)}`);
  });

  it('a change past the knee, or the warmup alone: a warning, but no caveat under the capacity', () => {
    const w = across({ steps: [0, 1, 2, 3], counts: [3, 3, 3, 4], warmup: null });
    const run = plateau([3, 3, 3, 4], [w]);
    expect(warningText(w, run)).toBe(
      `the topology probe read different values in the steps that held still (3 at steps 1-3; 4 at step 4): each measured one system, but not the same one; ${FIX}`,
    );
    expect(capacityCaveats(run)).toEqual([]);
    const warm = across({ steps: [0, 1], counts: [4, 4], warmup: 2 });
    expect(warningText(warm, plateau([4, 4]))).toMatch(
      /^the topology probe read different values in the steps that held still \(2 at the warmup's end; 4 at steps 1 and 2\)/,
    );
  });
});

describe('the topology in the headline', () => {
  it('says the value the capacity was measured at, where the probe read one', () => {
    expect(capacityText(plateau([3, 3, 4, 4]))).toBe(
      "300.0 req/s (step 3; measured at a topology of 4, the probe's reading at step 3)",
    );
    expect(capacityText(plateau([]))).toBe('300.0 req/s (step 3)');
    const allHeld = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    const read = { ...allHeld, steps: allHeld.steps.map((s) => ({ ...s, topology: 2 })) };
    expect(capacityText(read)).toBe(
      "at least 200.0 req/s (every planned step held; raise the top rate; measured at a topology of 2, the probe's reading at step 2)",
    );
  });

  it('a topology that never held still establishes no capacity, and the gate cannot judge it', () => {
    const run = plateau([]);
    const unsteady: RunResult = {
      ...run,
      steps: [
        run.steps[0],
        { ...run.steps[1], contaminated: true, topologyValues: [3, 4] },
        { ...run.steps[1], attempt: 2, contaminated: true, topologyValues: [4, 5] },
      ],
      capacityPerSec: null,
      heldAtLeastPerSec: 100,
      kneeStep: 0,
      stopReason: 'topology-unsteady',
      stopDetail: 'step 2 (200 req/s): the topology changed during every attempt at its rate',
      contaminated: true,
    };
    expect(capacityText(unsteady)).toBe(
      'not established (at least 100.0 req/s held; the topology changed during every attempt at step 2: it never held still)',
    );
    const first = { ...unsteady, steps: unsteady.steps.slice(1), heldAtLeastPerSec: null, kneeStep: null };
    expect(capacityText(first)).toBe(
      'not established: the topology changed during every attempt at step 2: it never held still',
    );
    expect(unjudgeableReasons(unsteady)).toEqual([
      'the topology never held still: step 2 (200 req/s): the topology changed during every attempt at its rate',
    ]);
  });
});
