/**
 * The unit of a run's rates in the decision's own words: a run whose traffic has a transaction
 * counts arrivals (each several requests), so its reasons, stop detail, overload evidence,
 * objective and gate say arrivals/s; any other run keeps req/s, where an arrival is one request.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { buildInput, type FakeStep } from './testing/builders.ts';
import { rateUnitOf, sharedRateUnit } from './format.ts';
import { decideGate } from './gate/decide.ts';
import type { RateUnit, RunResult, TrafficRecord } from './types.ts';

const MIX: TrafficRecord = {
  entries: [
    { name: 'read', weight: 70, transaction: false },
    { name: 'checkout', weight: 30, transaction: true },
  ],
};
const REQUESTS: TrafficRecord = { entries: [{ name: 'read', weight: 1, transaction: false }] };

/** Steps 100..500 holding to 300, flat at 310 above, with 2% errors past the knee; an objective on the client's p99. */
function plateauRun(rateUnit?: RateUnit): RunResult {
  const steps: FakeStep[] = [100, 200, 300, 400, 500].map((r) =>
    r <= 300 ? { ratePerSec: r } : { ratePerSec: r, okPerSec: 310, failedPerSec: 8, latencyMs: 400 },
  );
  return analyzeRun({
    ...buildInput({ steps, holdS: 12, rampS: 1, settleS: 2 }),
    ...(rateUnit ? { rateUnit } : {}),
    slo: { quantile: 0.99, maxMs: 200, source: 'client' },
  });
}

/** Every sentence of a run that names a rate: the stop detail, the steps' reasons, the overload evidence, the objective's detail. */
function texts(run: RunResult): string {
  return [
    run.stopDetail,
    ...run.steps.flatMap((s) => s.reasons),
    run.overload?.evidence ?? '',
    run.slo?.detail ?? '',
  ].join('\n');
}

describe('the rate unit of the decision texts', () => {
  it('a run of transactions says arrivals/s in every reason, the stop, the overload shape and the objective', () => {
    const run = plateauRun('arrivals/s');
    expect(run.stopReason).toBe('plateau');
    expect(run.rules.rateUnit).toBe('arrivals/s');
    expect(run.stopDetail).toMatch(
      /^step 4 \(400 arrivals\/s\) delivered 0\.78 < 0\.90 \(310\.0 arrivals\/s achieved\)/,
    );
    expect(run.stopDetail).toMatch(/of completed arrivals failed/);
    expect(run.steps[3].reasons.join('; ')).toMatch(/arrivals\/s/);
    expect(run.overload?.evidence ?? '').toMatch(/arrivals\/s/);
    expect(run.slo?.detail).toMatch(/\(\d+ arrivals\/s\)/);
    expect(texts(run)).not.toMatch(/req\/s|completed requests/);
  });

  it('a run of one request per arrival keeps req/s, and without a unit the texts say req/s as before', () => {
    for (const run of [plateauRun('req/s'), plateauRun()]) {
      expect(run.stopDetail).toMatch(/^step 4 \(400 req\/s\) delivered 0\.78 < 0\.90 \(310\.0 req\/s achieved\)/);
      expect(texts(run)).not.toMatch(/arrivals\/s/);
    }
  });

  it('the unit follows the traffic: a transaction anywhere makes it arrivals/s, for one run and for two', () => {
    expect(rateUnitOf(MIX)).toBe('arrivals/s');
    expect(rateUnitOf(REQUESTS)).toBe('req/s');
    expect(rateUnitOf(undefined)).toBe('req/s');
    expect(sharedRateUnit(REQUESTS, MIX)).toBe('arrivals/s');
    expect(sharedRateUnit(MIX, REQUESTS)).toBe('arrivals/s');
    expect(sharedRateUnit(REQUESTS, undefined)).toBe('req/s');
  });

  it("the gate's headline gives a mix's capacity in arrivals/s", () => {
    const base = { ...plateauRun('arrivals/s'), traffic: MIX };
    const d = decideGate(base, base, 0.05);
    expect(d.status).toBe('pass');
    expect(d.headline).toMatch(/^capacity holds: \d+\.\d arrivals\/s vs baseline \d+\.\d arrivals\/s/);
    expect(d.headline).not.toMatch(/req\/s/);
    const plain = plateauRun();
    expect(decideGate(plain, plain, 0.05).headline).toMatch(/req\/s vs baseline/);
  });
});
