import { describe, expect, it } from 'vitest';
import { afterFailure } from './after-failure.ts';

describe('afterFailure', () => {
  const policy = { confirmFailedStep: true, rerunContaminated: true, maxVUs: 50, maxVUsBound: 150 };
  const target = { generatorBound: false, symptom: null, symptomCode: null, needsVUs: false, detail: 'target' };
  const vus = {
    generatorBound: true,
    symptom: 'drops',
    symptomCode: null,
    needsVUs: true,
    detail: 'generator-limited',
  };
  const cpu = { generatorBound: true, symptom: 'lag', symptomCode: null, needsVUs: false, detail: 'generator-limited' };
  const inconclusive = {
    generatorBound: false,
    symptom: 'drops',
    symptomCode: null,
    needsVUs: true,
    inconclusive: true,
    detail: 'no baseline',
  };
  it.each([
    ['target, first attempt: confirm', target, false, 1, policy, 'rerun', 50],
    ['target, second attempt: stop', target, false, 2, policy, 'stop', undefined],
    ['no confirmation configured', target, false, 1, { ...policy, confirmFailedStep: false }, 'stop', undefined],
    ['short of VUs: double within the bound', vus, false, 1, policy, 'rerun', 100],
    ['short of VUs at the bound: stop', vus, false, 1, { ...policy, maxVUs: 150 }, 'stop', undefined],
    ['generator CPU: stop', cpu, false, 1, policy, 'stop', undefined],
    ['topology changed: rerun', target, true, 1, { ...policy, confirmFailedStep: false }, 'rerun', 50],
    ['topology changed while short of VUs: rerun with more', vus, true, 1, policy, 'rerun', 100],
    ['topology changed while short of CPU: rerun, not stop', cpu, true, 1, policy, 'rerun', 50],
    [
      'no baseline, drops: rerun with more VUs',
      inconclusive,
      false,
      1,
      { ...policy, confirmFailedStep: false },
      'rerun',
      100,
    ],
    ['no baseline, drops, at the bound: confirm', inconclusive, false, 1, { ...policy, maxVUs: 150 }, 'rerun', 150],
    ['no baseline, second attempt: stop', inconclusive, false, 2, policy, 'stop', undefined],
  ] as const)('%s', (_n, cls, contaminated, attempt, p, action, maxVUs) => {
    const d = afterFailure(cls, contaminated, attempt, p);
    expect(d.action).toBe(action);
    if (d.action === 'rerun') expect(d.maxVUs).toBe(maxVUs);
  });

  it('a step rerun for a topology change is not marked generator-bound: it does not decide', () => {
    expect(afterFailure(cpu, true, 1, policy)).toMatchObject({
      action: 'rerun',
      generatorBound: false,
      contaminated: true,
    });
    expect(afterFailure(inconclusive, false, 1, policy)).toMatchObject({ generatorBound: false });
  });

  it("short of VUs at the bound: plateau's setting to raise, or for an imported k6 run its script's", () => {
    const at = { ...policy, maxVUs: 150 };
    expect(afterFailure(vus, false, 1, at).why).toBe(
      'generator-limited; maxVUs is at its bound 150: raise verdicts.maxVUsBound',
    );
    // sized past the bound (Little's law at a high rate): the message names both figures
    expect(afterFailure(vus, false, 1, { ...at, maxVUs: 10_000 }).why).toBe(
      'generator-limited; maxVUs 10000 is past its bound 150 already: raise verdicts.maxVUsBound above it (limits.maxInFlight caps both)',
    );
    expect(afterFailure(vus, false, 1, { ...at, imported: true }).why).toBe(
      "generator-limited; raise the k6 scenario's maxVUs and run it again",
    );
  });
});
