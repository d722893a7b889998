import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { aggregate } from './buckets.ts';
import { crossCheck } from './cross-check.ts';
import { overSpan, SpanReader } from './span-match.ts';
import { buildInput, serverWindowOf, type FakeRunSpec, type FakeStep } from './testing/builders.ts';
import type { AnalysedRecord, ServerWindow } from './types.ts';

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
function second(t: number, records: readonly AnalysedRecord[] = input.records): { n: number; sumMs: number } {
  const d = aggregate(records, 'steps', t, t + 1).hist.duration;
  return { n: d.totalCount, sumMs: (d.totalCount * d.mean) / 1000 };
}

/** What a server that saw exactly the client's requests reads over [fromS, toS], each second's spread evenly. */
function truthOver(
  fromS: number,
  toS: number,
  records: readonly AnalysedRecord[] = input.records,
): { perSec: number; meanMs: number } {
  let n = 0;
  let sumMs = 0;
  for (let t = Math.floor(fromS); t < Math.ceil(toS); t++) {
    const part = Math.min(toS, t + 1) - Math.max(fromS, t);
    const s = second(t, records);
    n += part * s.n;
    sumMs += part * s.sumMs;
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
    // over the server's successes: the client's 600, plus second 1's slice, less second 4's
    const serverOk = 600 + 0.04 * second(1).n - 0.04 * second(4).n;
    expect(shifted.slack.meanMs).toBeCloseTo((0.04 * 200 * (mean - s1) + 0.04 * 200 * (mean - s4)) / serverOk, 6);
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

// one step a second from 0 s: seconds 2, 3 and 4 hold 20, 1000 and 20 requests (review G1), the
// burst faster than the seconds around it
const bursty = buildInput({
  steps: [20, 20, 20, 1000, 20, 20].map((ratePerSec): FakeStep => ({
    ratePerSec,
    latencyMs: ratePerSec > 20 ? 10 : 40,
  })),
  rampS: 0,
  holdS: 1,
  settleS: 0,
}).records;

describe("what the client's whole seconds leave unmatched bounds the server's figures", () => {
  it('reads a server that saw exactly the burst over 2.45-4.55 s as consistent (review G1: 40.4% apart, where the tolerance had been 33.3%)', () => {
    const fig = new SpanReader(bursty).step({ fromS: 2.45, toS: 4.55 })!;
    expect(fig).toMatchObject({ fromS: 2, toS: 5 });
    const t = truthOver(2.45, 4.55, bursty);
    const w: ServerWindow = { ...serverWindowOf(t.perSec, t.meanMs), fromS: 2.45, toS: 4.55 };
    expect(crossCheck(fig.perSec, fig.meanMs, 0, w, 0, 'arrivals', { share: 0 }, 0, fig.slack).verdict).toBe(
      'consistent',
    );
  });

  // spans lying inside their whole seconds, beyond them, across them, and within one of them
  it.each([
    [2.45, 4.55],
    [1.55, 5.45],
    [2.45, 5.45],
    [1.55, 4.55],
    [2.3, 3.7],
    [3.3, 3.7],
    [2.96, 4.96],
    [3.04, 4.04],
  ])('bounds the rate and the mean of a server that saw exactly the client over %s-%s s', (fromS, toS) => {
    const fig = new SpanReader(bursty).step({ fromS, toS })!;
    const t = truthOver(fromS, toS, bursty);
    expect(Math.abs(t.perSec - fig.perSec)).toBeLessThanOrEqual(fig.slack.share * fig.perSec * (1 + 1e-9));
    expect(Math.abs(t.meanMs - fig.meanMs!)).toBeLessThanOrEqual(fig.slack.meanMs * (1 + 1e-9) + 1e-9);
  });

  it('reads no span that holds no whole second nearest its edges (review G2), and the cross-check compares the steady window', () => {
    const reader = new SpanReader(input.records);
    // 3.6-3.9 s would have been read over second 4, which it never touches; 3.6-4.4 s over 4-5 s, an edge 0.6 s off
    expect(reader.step({ fromS: 3.6, toS: 3.9 })).toBeNull();
    expect(reader.step({ fromS: 3.6, toS: 4.4 })).toBeNull();
    expect(reader.name({ fromS: 3.6, toS: 3.9 }, 'x')).toBeNull();
    // a span under a second is read where one whole second lies nearest both its edges (each 0.4 s off here)
    expect(reader.step({ fromS: 3.4, toS: 3.6 })).toMatchObject({ fromS: 3, toS: 4 });
    const w = { ...serverWindowOf(200, 30), source: 'promql' as const, fromS: 3.6, toS: 3.9 };
    const steady = { perSec: 200, meanMs: 25 };
    expect(overSpan({ fromS: 1, toS: 5 }, w, (span) => reader.step(span), steady)).toEqual({
      ...steady,
      slack: { share: 0, meanMs: 0 },
    });
  });

  it('reads a window missing a second per calendar second whether or not its seconds are the steady window (review G15)', () => {
    const gap = input.records.filter((r) => r.tS !== 3);
    const run = analyzeRun({
      ...input,
      records: gap,
      promqlWindows: [
        { index: 0, attempt: 1, window: { ...serverWindowOf(150, 30), source: 'promql', fromS: 1.006, toS: 5.003 } },
      ],
    });
    const s = run.steps[0]!;
    expect(s.verdict).toBe('incomplete');
    const completed = aggregate(gap, 'steps', 1, 5).completed;
    // the step's own rate is per second holding a bucket; the cross-check's, like the server's, per second of the span
    expect(s.completedPerSec).toBeCloseTo(completed / 3, 9);
    expect(s.crossCheck!.clientPerSec).toBeCloseTo(completed / 4, 9);
    const reader = new SpanReader(gap);
    const read = (span: ServerWindow) => reader.step(span);
    const w = { ...serverWindowOf(150, 30), fromS: 1.006, toS: 5.003 };
    const stepFigures = { perSec: s.completedPerSec, meanMs: s.meanMs };
    // the same seconds through the steady window's branch and through the span's
    const asSteady = overSpan({ fromS: 1, toS: 5 }, w, read, stepFigures);
    const asSpan = overSpan({ fromS: 2, toS: 5 }, w, read, stepFigures);
    expect(asSpan.slack.seconds).toEqual({ fromS: 1, toS: 5 });
    expect(asSteady.slack.seconds).toBeUndefined();
    expect(asSteady.perSec).toBe(asSpan.perSec);
    expect(asSteady.meanMs).toBe(asSpan.meanMs);
  });
});
