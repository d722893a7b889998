import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { aggregate } from './buckets.ts';
import { crossCheck } from './server.ts';
import { SpanReader } from './span-match.ts';
import { buildInput, serverWindowOf, type FakeRunSpec } from './testing/builders.ts';
import type { ServerWindow } from './types.ts';

// base-4's step 1 of review F: 15 ms, then 58 ms over the middle two seconds, then 17 ms, in a
// steady window of 1-5 s (ramp 0-1 s); Prometheus's scrapes span 1.96-4.96 s of it
const spec: FakeRunSpec = {
  steps: [{ ratePerSec: 200, latencyMs: 15, secondLatencyMs: { 2: 58, 3: 58, 4: 17 } }],
  rampS: 1,
  holdS: 4,
  settleS: 0,
};
const input = buildInput(spec);

/** The client's successes in second t: their count and summed ms. */
function second(t: number): { n: number; sumMs: number } {
  const d = aggregate(input.records, 'steps', t, t + 1).hist.duration;
  return { n: d.totalCount, sumMs: (d.totalCount * d.mean) / 1000 };
}

/** What a server that saw exactly the client's requests reads over [fromS, toS], each second's spread evenly. */
function truthOver(fromS: number, toS: number): { perSec: number; meanMs: number } {
  let n = 0;
  let sumMs = 0;
  for (let t = Math.floor(fromS); t < Math.ceil(toS); t++) {
    const part = Math.min(toS, t + 1) - Math.max(fromS, t);
    n += part * second(t).n;
    sumMs += part * second(t).sumMs;
  }
  return { perSec: n / (toS - fromS), meanMs: sumMs / n };
}

function viaPromql(fromS: number, toS: number, meanFactor = 1): ServerWindow {
  const t = truthOver(fromS, toS);
  return { ...serverWindowOf(t.perSec, t.meanMs * meanFactor), source: 'promql', fromS, toS };
}

describe("the cross-check reads the client over the server window's span", () => {
  it("compares PromQL's 1.96-4.96 s with the client's 2-5 s, not its whole 1-5 s window: consistent, where the whole window read other traffic", () => {
    const w = viaPromql(1.96, 4.96);
    const run = analyzeRun({ ...input, promqlWindows: [{ index: 0, attempt: 1, window: w }] });
    const s = run.steps[0]!;
    expect(s.crossCheck!.verdict).toBe('consistent');
    expect(s.crossCheck!.detail).toContain("client 200.0 (over 2-5 s, the whole seconds of the server's span)");
    expect(s.crossCheck!.detail).toMatch(/ms of it for the span's edges the client's whole seconds do not match\)$/);
    // the client's figures shown are those compared: over 2-5 s, not the step's
    expect(s.crossCheck!.clientMeanMinusRttMs! + 0.5).toBeCloseTo(truthOver(2, 5).meanMs, 6);
    expect(s.meanMs).toBeCloseTo(truthOver(1, 5).meanMs, 6);
    // the old comparison, the whole window's client against the span's server: "other traffic in it?"
    expect(crossCheck(s.completedPerSec, s.meanMs, 0.5, w).verdict).toBe('traffic-extra');
  });

  it('still reads other traffic where the server is slower than the span mismatch explains', () => {
    const w = viaPromql(1.96, 4.96, 1.2);
    const run = analyzeRun({ ...input, promqlWindows: [{ index: 0, attempt: 1, window: w }] });
    expect(run.steps[0]!.crossCheck!.verdict).toBe('traffic-extra');
  });

  it('widens the tolerances by the unmatched slices: none where the span is whole seconds, more where latency changes at an edge', () => {
    const reader = new SpanReader(input.records);
    expect(reader.step({ fromS: 2, toS: 5 })!.slack).toEqual({ share: 0, meanMs: 0 });
    const shifted = reader.step({ fromS: 1.96, toS: 4.96 })!;
    expect(shifted).toMatchObject({ fromS: 2, toS: 5 });
    // 0.04 s at each edge of a steady 200/s: slices at the span's own rate move no count (review G14:
    // a whole slice's requests had widened the throughput's tolerance by a third at half a second)
    expect(shifted.slack.share).toBeCloseTo(0, 9);
    // where an edge's second ran at another rate, by its share times the difference
    const uneven = new SpanReader(
      buildInput({
        ...spec,
        steps: [
          { ratePerSec: 200, latencyMs: 15 },
          { ratePerSec: 400, latencyMs: 15 },
        ],
      }).records,
    );
    const across = uneven.step({ fromS: 1.5, toS: 6.5 })!;
    expect(across).toMatchObject({ fromS: 2, toS: 7 });
    expect(across.slack.share).toBeGreaterThan(0);
    // the slices lie in seconds 1 (15 ms) and 4 (17 ms), far below the span's mean
    const mean = truthOver(2, 5).meanMs;
    const s1 = second(1).sumMs / second(1).n;
    const s4 = second(4).sumMs / second(4).n;
    expect(shifted.slack.meanMs).toBeCloseTo((0.04 * 200 * (mean - s1) + 0.04 * 200 * (mean - s4)) / 600, 6);
    // a span wholly in steady latency (seconds 2 and 3 at 58 ms) moves no mean
    expect(reader.step({ fromS: 2.04, toS: 3.04 })!.slack.meanMs).toBeCloseTo(0, 9);
  });

  it("keeps the step's own figures where the direct readings sit at the window's edges", () => {
    const w = { ...serverWindowOf(200, truthOver(1, 5).meanMs), fromS: 1.006, toS: 5.003 };
    const run = analyzeRun({ ...input, promqlWindows: [{ index: 0, attempt: 1, window: { ...w, source: 'promql' } }] });
    const s = run.steps[0]!;
    expect(s.crossCheck!.verdict).toBe('consistent');
    expect(s.crossCheck!.clientPerSec).toBe(s.completedPerSec);
    expect(s.crossCheck!.detail).not.toContain('whole seconds');
  });
});
