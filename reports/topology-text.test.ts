/** A topology that never held still, in the headline and the gate. */
import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { unjudgeableReasons } from '../analysis/gate/judgeable.ts';
import { capacityText } from './headline-text.ts';

describe('the topology in the headline', () => {
  it('a topology that never held still establishes no capacity, and the gate cannot judge it', () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
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
