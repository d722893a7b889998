/** Capacity within a latency objective: which step establishes it, what is never trusted, and the words. */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { DEFAULT_RULES, buildInput, stepResult } from './testing/builders.ts';
import { atSloCapacity, percentOf, sloObjectiveText, sloOf, sloQuantileProblem } from './slo.ts';
import type { RttFigures, ServerPercentile, SloConfig, StepResult } from './types.ts';

const RTT: RttFigures = { connectMedianMs: 0.2, httpMedianMs: 3, httpP90Ms: 4, httpMinMs: 2, samples: 20 };
const CLIENT: SloConfig = { quantile: 0.99, maxMs: 300, source: 'client' };
const SERVER: SloConfig = { ...CLIENT, source: 'server' };

/** Step i (rate 100 x (i+1)) that held, with a client p99 of `p99Ms` from `n` samples (3,000 make a p99 trusted). */
function step(i: number, p99Ms: number | null, over: Partial<StepResult> = {}, n = 5000): StepResult {
  const ratePerSec = 100 * (i + 1);
  return stepResult({
    index: i,
    ratePerSec,
    throughputPerSec: ratePerSec,
    latency: [
      { q: 50, valueMs: 10, n, reliable: true },
      { q: 99, valueMs: p99Ms, n, reliable: n >= 3000 },
    ],
    ...over,
  });
}

/** Server percentiles of a window: p99 `valueMs` in the bucket (lowerMs, upperMs], from n requests. */
function server(valueMs: number | null, n: number, lowerMs = 250, upperMs: number | null = 500) {
  const percentiles: ServerPercentile[] = [
    { q: 50, valueMs: 5, lowerMs: 0, upperMs: 10, n },
    { q: 99, valueMs, lowerMs, upperMs, n },
  ];
  return {
    source: 'scrape' as const,
    fromS: 0,
    toS: 10,
    throughputPerSec: 100,
    meanMs: 5,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    percentiles,
  };
}

/** A step held late: the generator over its bounds. */
const LATE = (i: number) => ({ code: 'late-arrivals', step: i, figures: {} });

const fails = (i: number, p99Ms: number) => step(i, p99Ms, { verdict: 'fails', throughputPerSec: 100 * i + 10 });

describe('sloOf: the step that establishes the capacity within the objective', () => {
  it.each<[string, SloConfig, StepResult[], { step: number | null; atLeast: boolean; detail: RegExp }]>([
    [
      'the highest holding step below the first that missed it',
      CLIENT,
      [step(0, 50), step(1, 120), step(2, 290), step(3, 420), fails(4, 900)],
      {
        step: 2,
        atLeast: false,
        detail: /^step 3 \(300 req\/s\) met it: p99 minus RTT 288 ms .*; step 4 \(400 req\/s\) missed it: 418 ms/,
      },
    ],
    [
      'every holding step met it: at least the held figure (the plateau came first)',
      CLIENT,
      [step(0, 50), step(1, 60), step(2, 70), fails(3, 900)],
      {
        step: 2,
        atLeast: true,
        detail: /no holding step missed it: the plateau came first, .* at least 300\.0 req\/s/,
      },
    ],
    [
      'a step past the knee never counts, however fast',
      CLIENT,
      [step(0, 50), step(1, 400), fails(2, 10), fails(3, 10)],
      { step: 0, atLeast: false, detail: /step 2 \(200 req\/s\) missed it/ },
    ],
    [
      'thin low steps neither establish nor refute; a trusted one above them does',
      CLIENT,
      [step(0, 900, {}, 1000), step(1, 280, {}, 2000), step(2, 250), step(3, 260), fails(4, 900)],
      { step: 3, atLeast: true, detail: /^step 4 \(400 req\/s\) met it/ },
    ],
    [
      'every holding step too thin: not established, with the fix',
      CLIENT,
      [step(0, 10, {}, 1000), step(1, 10, {}, 2000), fails(2, 900)],
      {
        step: null,
        atLeast: false,
        detail: /too few samples \(at most n 2,000 at step 2 .* of the 3,000 a p99 needs\): hold the steps longer/,
      },
    ],
    [
      'met again above a miss: not counted (never overstate)',
      CLIENT,
      [step(0, 50), step(1, 350), step(2, 280), fails(3, 900)],
      { step: 0, atLeast: false, detail: /step 3 \(300 req\/s\) met it again above the miss: not counted/ },
    ],
    [
      'the first judged step already missed it',
      CLIENT,
      [step(0, 50, {}, 100), step(1, 500), step(2, 500)],
      {
        step: null,
        atLeast: false,
        detail: /^step 2 \(200 req\/s\), the first judged holding step, already missed .*start lower/,
      },
    ],
    [
      'a step held with the generator over its bounds is not trusted',
      CLIENT,
      [step(0, 50), step(1, 60, { generatorLimited: { code: 'late-arrivals', step: 1, figures: {} } }), fails(2, 900)],
      { step: 0, atLeast: true, detail: /step 2 \(200 req\/s\) could not be judged \(generator-limited\)/ },
    ],
    [
      "the generator over its bounds in every holding step: the generator's fix from the step's symptom (dropped arrivals: more VUs)",
      CLIENT,
      [
        step(0, 50, { generatorLimited: LATE(0), dropped: 40, vusAllocatedMax: 64 }),
        step(1, 60, { generatorLimited: LATE(1), dropped: 90, vusAllocatedMax: 64 }),
        fails(2, 900),
      ],
      {
        step: null,
        atLeast: false,
        detail:
          /^the generator was over its bounds in every holding step it could be judged in: to judge them, allow more VUs \(vus\.max and verdicts\.maxVUsBound; 64 were allocated\)$/,
      },
    ],
    [
      'the same, late with no drop: more cores or workers',
      CLIENT,
      [step(0, 50, { generatorLimited: LATE(0), lagP99Ms: 40 }), fails(1, 900)],
      {
        step: null,
        atLeast: false,
        detail: /: to judge them, give the generator more cores or workers \(--workers\), or a machine of its own$/,
      },
    ],
    [
      'transient and contaminated attempts are set aside, as for the plateau',
      CLIENT,
      [
        step(0, 50),
        step(1, 900, { verdict: 'fails', transient: true }),
        step(1, 80, { attempt: 2 }),
        step(2, 10, { contaminated: true }),
        step(2, 350, { attempt: 2 }),
        fails(3, 900),
      ],
      { step: 1, atLeast: false, detail: /step 3 \(300 req\/s\) missed it/ },
    ],
    [
      'server: the histogram percentile, trusted by its n',
      SERVER,
      [
        step(0, 999, { server: server(120, 5000, 100, 250) }),
        step(1, 999, { server: server(280, 6000) }),
        step(2, 1, { server: server(310, 7000) }),
        fails(3, 1),
      ],
      {
        step: 1,
        atLeast: false,
        detail: /^step 2 \(200 req\/s\) met it: server p99 280 ms \(n 6,000\).*step 3 \(300 req\/s\) missed it: 310 ms/,
      },
    ],
    [
      'server: a thin window is not trusted',
      SERVER,
      [step(0, 1, { server: server(100, 2999) }), step(1, 1, { server: server(100, 3000) }), fails(2, 1)],
      { step: 1, atLeast: true, detail: /^step 2 \(200 req\/s\) met it/ },
    ],
    [
      'server: no histogram, with the fix',
      SERVER,
      [step(0, 10), step(1, 10), fails(2, 900)],
      {
        step: null,
        atLeast: false,
        detail: /no holding step has a server p99: .*histogram buckets .*slo\.source 'client'/,
      },
    ],
    [
      'server: a counter reset is not trusted',
      SERVER,
      [step(0, 1, { server: { ...server(100, 5000), counterReset: true } }), fails(1, 1)],
      { step: null, atLeast: false, detail: /^a server counter went backwards .*rerun with the target steady$/ },
    ],
    [
      'server: a counter reset that left the window no percentiles is said so',
      SERVER,
      [step(0, 1, { server: { ...server(100, 5000), percentiles: null, counterReset: true } }), fails(1, 1)],
      { step: null, atLeast: false, detail: /^a server counter went backwards/ },
    ],
    ['no step held', CLIENT, [fails(0, 10)], { step: null, atLeast: false, detail: /^no step held/ }],
  ])('%s', (_what, slo, steps, want) => {
    const r = sloOf(slo, steps, RTT, DEFAULT_RULES);
    expect(r.step, r.detail).toBe(want.step);
    expect(r.capacityPerSec).toBe(
      want.step === null
        ? null
        : steps.find((s) => s.index === want.step && s.verdict === 'holds' && !s.contaminated)!.throughputPerSec,
    );
    expect(r.atLeast).toBe(want.atLeast);
    expect(r.detail).toMatch(want.detail);
  });

  it('its capacity is at most the offered rate of its step, as the plateau capacity is (decision 043)', () => {
    // step 3 (300/s) drained a backlog in its window: 309 succeeded per second
    const r = sloOf(
      CLIENT,
      [step(0, 50), step(1, 60), step(2, 70, { throughputPerSec: 309 }), step(3, 900), fails(4, 900)],
      RTT,
      DEFAULT_RULES,
    );
    expect(r).toMatchObject({ step: 2, capacityPerSec: 300 });
  });

  it('each step: the value against the objective, its samples and why it was not judged', () => {
    const r = sloOf(CLIENT, [step(0, 50, {}, 1000), step(1, 302), fails(2, 100)], RTT, DEFAULT_RULES);
    expect(r.steps).toEqual([
      expect.objectContaining({
        step: 0,
        valueMs: 48,
        n: 1000,
        requiredSamples: 3000,
        reliable: false,
        met: null,
        unjudged: 'thin',
        holds: true,
      }),
      expect.objectContaining({ step: 1, valueMs: 300, reliable: true, met: true, holds: true }),
      expect.objectContaining({ step: 2, valueMs: 98, met: true, holds: false }),
    ]);
    expect(r.steps[1]).not.toHaveProperty('unjudged');
    expect(r).toMatchObject({ quantile: 0.99, maxMs: 300, source: 'client', rttMs: 2 });
  });

  it('client minus the RTT: its minimum, else its median; none subtracted (and said so) when not measured', () => {
    const steps = [step(0, 301), fails(1, 900)];
    expect(sloOf(CLIENT, steps, RTT, DEFAULT_RULES)).toMatchObject({ rttMs: 2, step: 0 });
    const noMin: RttFigures = { ...RTT, httpMinMs: undefined };
    expect(sloOf(CLIENT, steps, noMin, DEFAULT_RULES)).toMatchObject({ rttMs: 3, step: 0 });
    expect(sloOf(CLIENT, steps, null, DEFAULT_RULES)).toMatchObject({ rttMs: null, step: null });
    expect(sloOf(SERVER, steps, RTT, DEFAULT_RULES).rttMs).toBeNull();
  });

  it('the server bracket is kept for the reader', () => {
    const r = sloOf(SERVER, [step(0, 1, { server: server(280, 6000, 250, null) })], RTT, DEFAULT_RULES);
    expect(r.steps[0]).toMatchObject({ valueMs: 280, lowerMs: 250, upperMs: null });
  });

  it('minTailSamples is the rule the client uses too', () => {
    const r = sloOf(SERVER, [step(0, 1, { server: server(100, 1000) })], RTT, { ...DEFAULT_RULES, minTailSamples: 10 });
    expect(r.steps[0]).toMatchObject({ requiredSamples: 1000, reliable: true, met: true });
  });
});

describe('the quantiles an objective can name', () => {
  it.each<[number, SloConfig['source'], RegExp | null]>([
    [0.5, 'client', null],
    [0.9, 'client', null],
    [0.99, 'client', null],
    [0.999, 'client', null],
    [0.99, 'server', null],
    [
      0.95,
      'client',
      /^0\.95 \(p95\) is not a quantile the client's results keep \(p50, p90, p99, p99\.9\): set slo\.quantile to one of 0\.5, 0\.9, 0\.99, 0\.999$/,
    ],
    [
      0.999,
      'server',
      /server's results keep \(p50, p90, p99\) \(the client's results keep it: source 'client'\): set slo\.quantile to one of 0\.5, 0\.9, 0\.99$/,
    ],
    [1, 'client', /p100/],
  ])('%s on the %s', (q, source, problem) => {
    const p = sloQuantileProblem(q, source);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });

  it('a run recorded with one the results do not keep says so, judging nothing', () => {
    const r = sloOf({ ...CLIENT, quantile: 0.95 }, [step(0, 10)], RTT, DEFAULT_RULES);
    expect(r).toMatchObject({ capacityPerSec: null, step: null, steps: [] });
    expect(r.detail).toMatch(/^the objective cannot be judged: 0\.95 \(p95\)/);
  });

  it('0.999 is p99.9, not 99.900000001', () => expect(percentOf(0.999)).toBe(99.9));

  it('the objective in words', () => {
    expect(sloObjectiveText(CLIENT)).toBe('p99 <= 300 ms, client minus RTT');
    expect(sloObjectiveText({ quantile: 0.999, maxMs: 1500, source: 'server' })).toBe(
      "p99.9 <= 1,500 ms, server's histogram",
    );
  });
});

describe('through the analysis', () => {
  // median 10 ms: p99 about 38 ms; median 100 ms: about 382 ms (the builders' exponential tail)
  const spec = {
    steps: [
      { ratePerSec: 200, latencyMs: 10 },
      { ratePerSec: 300, latencyMs: 20 },
      { ratePerSec: 400, latencyMs: 100 },
      { ratePerSec: 500, okPerSec: 410, latencyMs: 200 },
    ],
    holdS: 12,
    rampS: 1,
    settleS: 2,
  };

  it('RunResult.slo when the config sets one, nothing otherwise', () => {
    const run = analyzeRun({ ...buildInput(spec), slo: CLIENT });
    expect(run.kneeStep).toBe(2);
    expect(run.slo).toMatchObject({ step: 1, capacityPerSec: 300, atLeast: false });
    // step 1's p99 rests on 2,000 samples (200 req/s x 10 s): marked, not trusted
    expect(run.slo!.steps.map((s) => [s.met, s.holds])).toEqual([
      [null, true],
      [true, true],
      [false, true],
      [false, false],
    ]);
    expect('slo' in analyzeRun(buildInput(spec))).toBe(false);
    // the decision is the plateau's alone
    expect(run.capacityPerSec).toBe(analyzeRun(buildInput(spec)).capacityPerSec);
  });

  it('the run at its capacity within the objective, for what is read there (cost)', () => {
    const run = analyzeRun({ ...buildInput(spec), slo: CLIENT });
    expect(atSloCapacity(run)).toMatchObject({ capacityPerSec: 300, kneeStep: 1 });
    expect(atSloCapacity(analyzeRun(buildInput(spec)))).toBeNull();
    expect(atSloCapacity(analyzeRun({ ...buildInput(spec), slo: { ...CLIENT, maxMs: 1 } }))).toBeNull();
  });
});
