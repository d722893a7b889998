/** The decision machine: each attempt's classification and the next action, from its evidence alone. */
import { describe, expect, it } from 'vitest';
import { decideAttempt, replayAttempts, type Evidence } from './decision.ts';
import { buildInput, topologySamples, type FakeStep } from './testing/builders.ts';
import { DEFAULT_GENERATOR_BOUNDS } from './generator-symptoms.ts';
import type { AttemptRecord, DecisionPolicy, NextAction, StepResult } from './types.ts';

const POLICY: DecisionPolicy = {
  rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 },
  bounds: DEFAULT_GENERATOR_BOUNDS,
  confirmFailedStep: true,
  rerunContaminated: true,
  maxVUsBound: 400,
};

/** Fake steps run in order as attempts (the i-th at its own time slot), with their evidence. */
function run(steps: FakeStep[], reruns: Record<number, number> = {}, maxVUs = 100) {
  const input = buildInput({ steps });
  let next = 0;
  const attempts: AttemptRecord[] = input.steps.map((s, i) => ({
    ...s,
    index: i in reruns ? reruns[i] : next++,
    attempt: i in reruns ? 2 : 1,
    maxVUs,
  }));
  const ev: Evidence = { records: input.records, probes: [], rttMs: 0.5 };
  return { attempts, ev };
}

/** Decides every attempt in turn: each one's action and the results as they stand at the end. */
function decideAll(
  attempts: AttemptRecord[],
  ev: Evidence,
  policy = POLICY,
): { actions: NextAction[]; judged: StepResult[] } {
  let judged: StepResult[] = [];
  const actions: NextAction[] = [];
  for (const a of attempts) {
    const d = decideAttempt(judged, a, ev, policy);
    judged = d.judged;
    actions.push(d.action);
  }
  return { actions, judged };
}

describe('decideAttempt', () => {
  it.each<[string, FakeStep[], Record<number, number>, NextAction[], string[]]>([
    [
      'holds: go on',
      [{ ratePerSec: 100 }, { ratePerSec: 200 }],
      {},
      [{ kind: 'go-on' }, { kind: 'go-on' }],
      ['holds', 'holds'],
    ],
    [
      'a failure is confirmed once, then stops',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 120 }, { ratePerSec: 200, okPerSec: 125 }],
      { 2: 1 },
      [{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 100 }, { kind: 'stop' }],
      ['holds', 'fails', 'fails'],
    ],
    [
      'a failure its rerun does not repeat is transient',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 120 }, { ratePerSec: 200 }],
      { 2: 1 },
      [{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 100 }, { kind: 'go-on' }],
      ['holds', 'fails transient', 'holds'],
    ],
    [
      'drops with a low tail: generator-bound, rerun with twice the VUs',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 150, droppedPerSec: 50 }],
      {},
      [{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 200 }],
      ['holds', 'fails generator-bound'],
    ],
    [
      'drops while the tail grew: the target waited on, confirmed',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 150, droppedPerSec: 50, latencyMs: 400 }],
      {},
      [{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 100 }],
      ['holds', 'fails waited-on-target'],
    ],
    [
      'a first step with drops: inconclusive, rerun with more VUs',
      [{ ratePerSec: 200, okPerSec: 150, droppedPerSec: 50 }],
      {},
      [{ kind: 'rerun', maxVUs: 200 }],
      ['fails inconclusive'],
    ],
    // a held step's drops are judged by the failed step's rule (decision 046)
    [
      'held, drops with a low tail: generator-limited by its drops',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 190, droppedPerSec: 10 }],
      {},
      [{ kind: 'go-on' }, { kind: 'go-on' }],
      ['holds', 'holds generator-limited:dropped'],
    ],
    [
      'held, drops while the tail grew and the generator kept its bounds: the VUs waited on the target',
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 190, droppedPerSec: 10, latencyMs: 400 }],
      {},
      [{ kind: 'go-on' }, { kind: 'go-on' }],
      ['holds', 'holds waited-on-target'],
    ],
    [
      "held, drops while the tail grew and the loop stalled: the drops the target's, the stall the generator's",
      [{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 190, droppedPerSec: 10, latencyMs: 400, loopDelayMaxMs: 300 }],
      {},
      [{ kind: 'go-on' }, { kind: 'go-on' }],
      ['holds', 'holds generator-limited:loop-delay waited-on-target'],
    ],
    [
      'held first step with drops: no step before it to judge the tail by, generator-limited',
      [{ ratePerSec: 200, okPerSec: 190, droppedPerSec: 10, latencyMs: 400 }],
      {},
      [{ kind: 'go-on' }],
      ['holds generator-limited:dropped'],
    ],
  ])('%s', (_name, steps, reruns, actions, classes) => {
    const { attempts, ev } = run(steps, reruns);
    const out = decideAll(attempts, ev);
    expect(out.actions).toEqual(actions);
    const cls = (s: StepResult) =>
      [
        s.verdict,
        s.transient && 'transient',
        s.generatorBound && 'generator-bound',
        s.generatorLimited && `generator-limited:${s.generatorLimited.code}`,
        s.waitedOnTarget && 'waited-on-target',
        s.inconclusive && 'inconclusive',
      ]
        .filter(Boolean)
        .join(' ');
    expect(out.judged.map(cls)).toEqual(classes);
  });

  it('generator-bound at the VU bound stops: more VUs are not allowed', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 150, droppedPerSec: 50 }], {}, 400);
    expect(decideAll(attempts, ev).actions.at(-1)).toEqual({ kind: 'stop' });
  });

  it('a held attempt whose topology changed is contaminated and rerun (with more VUs: it dropped), and whose limit it was is not said', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200, droppedPerSec: 5 }]);
    const s1 = attempts[1];
    const out = decideAll(attempts, {
      ...ev,
      probes: topologySamples([
        [s1.rampStartS, 1],
        [s1.steadyEndS, 2],
      ]),
    });
    expect(out.actions).toEqual([{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 200 }]);
    expect(out.judged[1]).toMatchObject({ verdict: 'holds', contaminated: true, topologyValues: [1, 2] });
    expect(out.judged[1].waitedOnTarget).toBeUndefined();
    expect(out.judged[1].generatorLimited?.code).toBe('dropped');
  });

  it('a rerun whose topology changed too stops the run, held or not: it never held still; one that held still goes on', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 200 }], { 2: 1 });
    const [, first, rerun] = attempts;
    const changed = (a: AttemptRecord, from: number, to: number): [number, number][] => [
      [a.rampStartS, from],
      [a.steadyEndS, to],
    ];
    const both = { ...ev, probes: topologySamples([...changed(first, 3, 4), ...changed(rerun, 4, 5)]) };
    const out = decideAll(attempts, both);
    expect(out.actions).toEqual([{ kind: 'go-on' }, { kind: 'rerun', maxVUs: 100 }, { kind: 'stop' }]);
    expect(out.judged.map((s) => [s.verdict, s.contaminated === true, s.topology])).toEqual([
      // step 1's end edge is read at the next attempt's ramp start
      ['holds', false, 3],
      ['holds', true, undefined],
      ['holds', true, undefined],
    ]);
    expect(decideAttempt(out.judged.slice(0, 2), rerun, both, POLICY).why).toBe(
      'the topology changed during all 2 attempts at this rate (3 -> 4, then 4 -> 5): it never held still, so nothing further measures one system; pin the replica count for the test (disable the autoscaler, or set its min = max), or warm the access layer up to its scale before the run',
    );
    // the rerun read 4 throughout: it measured one system, and the run goes on; each steady attempt keeps its value
    const settled = { ...ev, probes: topologySamples([[0, 3], ...changed(first, 3, 4), ...changed(rerun, 4, 4)]) };
    const on = decideAll(attempts, settled);
    expect(on.actions.at(-1)).toEqual({ kind: 'go-on' });
    expect(on.judged.map((s) => s.topology)).toEqual([3, undefined, 4]);
  });

  it('an attempt in which plateau refused names the scenario sent stops the run, held or not; its ramp counts too', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200 }]);
    const first =
      'http.send: name "page 11" differs only in its numbers from 10 names before it; give each request a fixed name';
    // one refusal in the second attempt's ramp (before its steady window), none in the first attempt
    const rampS = attempts[1].rampStartS;
    const records = ev.records.map((r) =>
      r.tS === rampS && r.phase === 'steps' ? { ...r, refusedNames: { count: 3, first } } : r,
    );
    const out = decideAll(attempts, { ...ev, records });
    expect(out.actions).toEqual([{ kind: 'go-on' }, { kind: 'stop' }]);
    expect(out.judged[1]).toMatchObject({ verdict: 'holds', refusedNames: { count: 3, first } });
    const d = decideAttempt(out.judged.slice(0, 1), attempts[1], { ...ev, records }, POLICY);
    expect(d.why).toBe(
      `plateau refused 3 sends of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's; the first: "${first}"`,
    );
    // without the refusal the same attempt goes on
    expect(decideAll(attempts, ev).actions).toEqual([{ kind: 'go-on' }, { kind: 'go-on' }]);
  });

  it('an attempt the live run never decided (null) is judged, not classified', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 150, droppedPerSec: 50 }]);
    const d = decideAttempt(decideAll(attempts.slice(0, 1), ev).judged, attempts[1], ev, POLICY, null);
    expect(d.action).toEqual({ kind: 'none' });
    expect(d.result).toMatchObject({ verdict: 'fails' });
    expect(d.result.generatorBound).toBeUndefined();
  });
});

describe('replayAttempts', () => {
  it('re-derives what the live run decided, and names an attempt whose stored action differs', () => {
    const { attempts, ev } = run([{ ratePerSec: 100 }, { ratePerSec: 200, okPerSec: 150, droppedPerSec: 50 }]);
    const live = decideAll(attempts, ev);
    const stored = attempts.map((a, i) => ({ ...a, action: live.actions[i] }));
    expect(replayAttempts(stored, ev, POLICY)).toEqual({ steps: live.judged, differs: [] });
    const edited = stored.map((a, i) => (i === 1 ? { ...a, action: { kind: 'stop' } as NextAction } : a));
    expect(replayAttempts(edited, ev, POLICY).differs).toEqual([
      { index: 1, attempt: 1, recorded: { kind: 'stop' }, derived: { kind: 'rerun', maxVUs: 200 } },
    ]);
  });
});
