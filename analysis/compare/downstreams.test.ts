import { describe, expect, it } from 'vitest';
import { fakeRun } from '../testing/builders.ts';
import { decideGate } from '../gate/decide.ts';
import { renderCompare } from '../../reports/compare.ts';
import { compareDocument } from '../../reports/compare-json.ts';
import type { RunResult } from '../types.ts';
import { downstreamRows, FAN_OUT_RISE, fanOutRises } from './downstreams.ts';

/** A run whose knee is at 400 req/s (steps 100..500), redis read at `fanOut(step index)` ops per request. */
function withRedis(fanOut: (i: number) => number | null): RunResult {
  const run = fakeRun({
    steps: [100, 200, 300, 400, 500].map((ratePerSec) => ({ ratePerSec, okPerSec: Math.min(ratePerSec, 410) })),
    holdS: 10,
    settleS: 2,
  });
  const steps = run.steps.map((s, i) => ({
    ...s,
    downstreams: [{ name: 'redis', opsPerSec: null, opsPerRequest: fanOut(i) }],
  }));
  return { ...run, steps, downstreams: [{ name: 'redis', steps: [], limiting: false }] };
}

const BASE = withRedis((i) => [1.22, 1.14, 1.09, 1.01, 1.03][i]);
/** One Redis call more per request (a review's redis1-1 against base-4). */
const DOUBLED = withRedis((i) => [2.23, 2.13, 2.08, 2.03, 2.11][i]);

describe("a downstream's fan-out at equal rates (compare) and its rise (gate: a warning)", () => {
  it('compare has a row per downstream and rate, with ops per request in each run', () => {
    expect(BASE.kneeStep).toBe(3);
    expect(downstreamRows(BASE, DOUBLED).slice(0, 2)).toEqual([
      { name: 'redis', ratePerSec: 100, a: 1.22, b: 2.23 },
      { name: 'redis', ratePerSec: 200, a: 1.14, b: 2.13 },
    ]);
    const md = renderCompare(BASE, DOUBLED);
    expect(md).toContain('| redis | 100 | 1.22 | 2.23 | +82.79% |');
    expect(md).toMatch(
      /> \*\*redis's fan-out rose 1\.87x: 2\.03 to 2\.23 ops per request in B against 1\.01 to 1\.22 in A at the 4 rates both held \(100, 200, 300, 400\)/,
    );
    const json = compareDocument({ a: BASE, b: DOUBLED, rows: [], warnings: [], cost: null });
    expect(json.downstreams).toHaveLength(5);
    expect(json.downstreamWarnings).toHaveLength(1);
  });

  it('the gate warns on the rise and keeps its decision; a rise within the noise, or at one rate only, is not warned', () => {
    const gate = decideGate(DOUBLED, BASE, 0.05);
    expect(gate.warnings).toEqual([
      expect.stringMatching(/^redis's fan-out rose 1\.87x: .* in the run against .* in the baseline/),
    ]);
    expect(gate.status).toBe(decideGate(BASE, BASE, 0.05).status);
    // 20% more: within FAN_OUT_RISE
    expect(FAN_OUT_RISE).toBe(1.25);
    expect(
      fanOutRises(
        BASE,
        withRedis((i) => 1.2 * [1.22, 1.14, 1.09, 1.01, 1.03][i]),
      ),
    ).toEqual([]);
    // doubled at one held rate only (the others unread)
    expect(
      fanOutRises(
        BASE,
        withRedis((i) => (i === 0 ? 2.4 : null)),
      ),
    ).toEqual([]);
    // a spike at one of two rates: each must rise (review G16); a call from none is a rise (G11)
    const twoRates = (f: readonly [number, number]) => withRedis((i) => (i < 2 ? f[i]! : null));
    expect(fanOutRises(twoRates([1, 1]), twoRates([1, 1.5]))).toEqual([]);
    expect(fanOutRises(twoRates([1, 1]), twoRates([1.5, 1.5]))).toHaveLength(1);
    expect(fanOutRises(twoRates([0, 0]), twoRates([1, 1]))).toEqual([
      expect.stringMatching(
        /^redis's fan-out rose from none: 1\.00 to 1\.00 ops per request in B against 0\.00 to 0\.00 in A/,
      ),
    ]);
    // runs without downstreams: nothing
    const plain = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    expect(downstreamRows(plain, plain)).toEqual([]);
    expect(renderCompare(plain, plain)).not.toContain('Downstreams');
  });
});
