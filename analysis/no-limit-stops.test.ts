/** The stops that find no limit (no-limit-stops.ts): here, a step that failed of refused connections. */
import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { DEFAULT_RULES, fakeRun, stepResult, type FakeStep } from './testing/builders.ts';
import { unjudgeableReasons } from './gate/judgeable.ts';
import { runWarnings } from './warnings.ts';
import { capacityText } from '../reports/headline-text.ts';

describe('a step that failed of refused connections: the target went away, no capacity', () => {
  const steps = (third: Partial<FakeStep>): FakeStep[] => [
    { ratePerSec: 50 },
    { ratePerSec: 100 },
    {
      ratePerSec: 150,
      okPerSec: 0,
      failedPerSec: 150,
      errorKind: 'refused',
      errorSample: 'connect ECONNREFUSED',
      ...third,
    },
  ];

  it('stops as target-unreachable, establishes nothing, and the gate cannot judge it', () => {
    const run = fakeRun({ steps: steps({}), holdS: 6, rampS: 1, settleS: 2 });
    expect([run.stopReason, run.capacityPerSec, run.heldAtLeastPerSec]).toEqual(['target-unreachable', null, 100]);
    expect(run.stopDetail).toMatch(
      /^step 3 \(150 req\/s\) failed of refused connections: \d[\d,]* of its requests \(100\.00% of its failures\) found nothing listening at the target, which stopped, crashed or restarted during it \(perhaps under this load\); that is an outage, not a plateau: at least 100\.0 req\/s held before it; rerun once the target is up \(and read its logs if it fell over under the load\)$/,
    );
    expect(capacityText(run)).toBe(
      'not established (at least 100.0 req/s held; the target stopped accepting connections (refused) in the step that failed: an outage, not a limit)',
    );
    expect(unjudgeableReasons(run)[0]).toMatch(/^the target was unreachable: step 3/);
    expect(run.warnings.map((w) => w.code)).toContain('refused');
  });

  /** Held at 50 and 100; the third step, at 150, delivered 100 and failed with `errors` over its 4 s window. */
  const thirdFailed = (errors: Record<string, number>, second?: Record<string, number>) => {
    const held = [50, 100].map((r, index) => stepResult({ index, ratePerSec: r, throughputPerSec: r }));
    const fail = (attempt: number, e: Record<string, number>) =>
      stepResult({
        index: 2,
        attempt,
        ratePerSec: 150,
        throughputPerSec: 100,
        delivery: 100 / 150,
        steadyS: 4,
        verdict: 'fails',
        errors: e,
      });
    return summarizeStop([...held, fail(1, errors), ...(second ? [fail(2, second)] : [])], 3, false, DEFAULT_RULES);
  };

  it("a saturated step's few refusals, or a failure of 503s with refusals among them, leave the limit it found", () => {
    // 3 refused of some 1,800: all its errors, but they do not explain a delivery of 0.67 (a review's case)
    expect(thirdFailed({ refused: 3 })).toMatchObject({ stopReason: 'plateau', capacityPerSec: 100 });
    // mostly 503s
    expect(thirdFailed({ http_5xx: 150, refused: 40 })).toMatchObject({ stopReason: 'plateau', capacityPerSec: 100 });
    // served, the refusals would have carried delivery to 0.9: the target went away
    expect(thirdFailed({ refused: 200 })).toMatchObject({ stopReason: 'target-unreachable', capacityPerSec: null });
  });

  it('an attempt that failed of 503s before the target fell over keeps its limit, though the confirmation met refusals', () => {
    expect(thirdFailed({ http_5xx: 200 }, { refused: 200 })).toMatchObject({
      stopReason: 'plateau',
      capacityPerSec: 100,
    });
  });

  it("warns of refusals, not of closed keep-alives, where the refusals explain the step's reconnects", () => {
    const s = stepResult({ completed: 1000, reconnects: 400, errors: { refused: 300 } });
    const codes = runWarnings([s], DEFAULT_RULES).map((w) => w.code);
    expect(codes).toContain('refused');
    expect(codes).not.toContain('reconnects');
    // reconnects with no refusal: the keep-alive warning, as before
    expect(runWarnings([{ ...s, errors: {} }], DEFAULT_RULES).map((w) => w.code)).toEqual(['reconnects']);
  });
});

describe("a step that failed of the scenario's own errors (kind other): no limit of the target, no capacity", () => {
  const steps = (third: Partial<FakeStep>): FakeStep[] => [
    { ratePerSec: 50 },
    { ratePerSec: 100 },
    {
      ratePerSec: 150,
      okPerSec: 75,
      failedPerSec: 75,
      errorKind: 'other',
      errorSample: "other: buy: run threw: TypeError: Cannot read properties of undefined (reading 'id')",
      ...third,
    },
  ];

  it('stops as scenario-errors, establishes nothing, says the first message, and the gate cannot judge it', () => {
    const run = fakeRun({ steps: steps({}), holdS: 6, rampS: 1, settleS: 2 });
    expect([run.stopReason, run.capacityPerSec, run.heldAtLeastPerSec]).toEqual(['scenario-errors', null, 100]);
    expect(run.stopDetail).toMatch(
      /^step 3 \(150 req\/s\) failed of the scenario's own errors: [\d,]+ of its arrivals \(100\.00% of its failures\) failed of kind other, .*; the first: "buy: run threw: TypeError: Cannot read properties of undefined \(reading 'id'\)"; served, they would have carried its delivery to 0\.90: that is no limit of the target: at least 100\.0 req\/s held before it; fix the scenario/,
    );
    expect(capacityText(run)).toBe(
      "not established (at least 100.0 req/s held; the scenario's own errors (kind other) failed the step that failed: no limit of the target)",
    );
    expect(unjudgeableReasons(run)[0]).toMatch(/^the scenario's own errors failed the run: step 3/);
  });

  it('in the first step too', () => {
    const run = fakeRun({ steps: steps({}).slice(2), holdS: 6, rampS: 1, settleS: 2 });
    expect([run.stopReason, run.capacityPerSec]).toEqual(['scenario-errors', null]);
    expect(capacityText(run)).toBe("not established: the scenario's own errors failed the first step");
  });

  it('a saturated step with some of them among its own failures keeps the limit it found', () => {
    // served, the 10/s of kind other would carry delivery to 0.57 only: the target's limit stands
    const run = fakeRun({ steps: steps({ okPerSec: 75, failedPerSec: 10 }), holdS: 6, rampS: 1, settleS: 2 });
    expect([run.stopReason, run.capacityPerSec]).toEqual(['plateau', 100]);
  });
});
