import { describe, expect, it } from 'vitest';
import { topologyAcrossSteps, warmupTopology } from './topology-across.ts';
import { analyzeRun, defaultPolicy } from './analyze.ts';
import {
  buildInput,
  emptySample,
  followingSteps,
  stepResult,
  topologySamples,
  withAttempts,
} from './testing/builders.ts';
import type { StepResult } from './types.ts';

const at = (index: number, topology: number | undefined, over: Partial<StepResult> = {}) =>
  stepResult({ index, ratePerSec: 100 * (index + 1), ...(topology === undefined ? {} : { topology }), ...over });

describe('a topology that changed between steps', () => {
  it.each<[string, StepResult[], number | null, number | null, Record<string, unknown> | null]>([
    ['one value throughout: nothing to say', [at(0, 3), at(1, 3), at(2, 3)], 3, 2, null],
    ['no reading at all', [at(0, undefined), at(1, undefined)], null, 1, null],
    [
      'scaled out between steps 3 and 4, the knee at 4: the knee compares topologies',
      [at(0, 3), at(1, 3), at(2, 3), at(3, 4), at(4, 4), at(5, 4, { verdict: 'fails' })],
      3,
      4,
      { steps: [0, 1, 2, 3, 4, 5], counts: [3, 3, 3, 4, 4, 4], warmup: 3, kneeStep: 4, kneeCount: 4, belowCounts: [3] },
    ],
    [
      'scaled out only past the knee (the autoscaler reacting to the failure): the knee is one system',
      [at(0, 3), at(1, 3), at(2, 4, { verdict: 'fails' })],
      null,
      1,
      { steps: [0, 1, 2], counts: [3, 3, 4], warmup: null },
    ],
    [
      'only the warmup differs: every step measured one system, the warmup another',
      [at(0, 4), at(1, 4)],
      3,
      1,
      { steps: [0, 1], counts: [4, 4], warmup: 3 },
    ],
    [
      'a contaminated attempt reads no one value and is not among them; a transient one below the knee compares nothing',
      [
        at(0, 3),
        at(1, undefined, { contaminated: true, topologyValues: [3, 4] }),
        at(1, 4, { attempt: 2 }),
        at(2, 2, { verdict: 'fails', transient: true }),
        at(2, 4, { attempt: 2 }),
      ],
      null,
      2,
      { steps: [0, 1, 2, 2], counts: [3, 4, 2, 4], warmup: null, kneeStep: 2, kneeCount: 4, belowCounts: [3] },
    ],
  ])('%s', (_what, steps, warmup, kneeStep, figures) => {
    const w = topologyAcrossSteps(steps, warmup, kneeStep);
    expect(w).toEqual(figures === null ? [] : [{ code: 'topology-across-steps', step: null, figures }]);
  });

  it("reads the warmup's last reading of its own phase", () => {
    const warm = (tS: number, topology: number | null) => emptySample(tS, { phase: 'warmup', topology });
    expect(warmupTopology([warm(1, 2), warm(3, 3), warm(5, null), ...topologySamples([[9, 5]])], 'warmup')).toBe(3);
    expect(warmupTopology(topologySamples([[1, 2]]), 'warmup')).toBeNull();
  });

  it('from the probe samples of a whole run: each step its value, the warning beside the capacity', () => {
    // step 3's first attempt saw the scale-out (contaminated) and its rerun held at 4: no deciding
    // step is contaminated, yet steps 1-2 ran at 3 replicas and the knee at 4
    const spec = {
      steps: [...followingSteps(3), { ratePerSec: 300 }, { ratePerSec: 400 }, { ratePerSec: 500, okPerSec: 300 }],
    };
    const input = withAttempts(buildInput(spec), { 3: { index: 2 } });
    input.policy = {
      ...defaultPolicy(input.rules, input.vus.maxVUs),
      confirmFailedStep: false,
      rerunContaminated: true,
    };
    const count = (i: number, edge: 'start' | 'end') => (i < 2 || (i === 2 && edge === 'start') ? 3 : 4);
    input.samples = topologySamples(
      input.steps.flatMap((s, i): [number, number][] => [
        [s.rampStartS, count(i, 'start')],
        [s.steadyEndS, count(i, 'end')],
      ]),
    );
    const run = analyzeRun(input);
    expect(run.steps.map((s) => [s.index, s.topology, s.contaminated === true])).toEqual([
      [0, 3, false],
      [1, 3, false],
      [2, undefined, true],
      [2, 4, false],
      [3, 4, false],
      [4, 4, false],
    ]);
    expect([run.capacityPerSec, run.kneeStep, run.stopReason]).toEqual([400, 3, 'plateau']);
    expect(run.warnings.filter((w) => w.code === 'topology-across-steps')).toEqual([
      {
        code: 'topology-across-steps',
        step: null,
        figures: {
          steps: [0, 1, 2, 3, 4],
          counts: [3, 3, 4, 4, 4],
          warmup: null,
          kneeStep: 3,
          kneeCount: 4,
          belowCounts: [3],
        },
      },
    ]);
  });
});
