/**
 * A server mean of fewer requests than rules.minTailSamples is no evidence (docs/decisions/061):
 * the cross-check does not judge by it, and its words say why, with its n and what gives it more.
 */
import { describe, expect, it } from 'vitest';
import { crossCheck } from './server.ts';
import { withServer } from './judge.ts';
import { emptySample, nameResult, serverWindowOf, stepWithP99 } from './testing/builders.ts';
import type { CrossCheck, StepPlan } from './types.ts';

/** A 5 s window (serverWindowOf's) of `n` requests at `meanMs` each. */
const windowOf = (n: number, meanMs: number) => serverWindowOf(n / 5, meanMs);

const THIN_WORDS =
  /latency not compared: the server's mean rests on 29 requests, fewer than the 30 a mean needs \(rules\.minTailSamples\): too few to stand for its time per request; hold the steps longer \(steps\.holdS\) or offer higher rates$/;

describe('the cross-check compares the means only where the server mean rests on enough requests', () => {
  it.each<[string, number, number | null, number, CrossCheck['verdict'], RegExp]>([
    // the client's 29 requests over the same 5 s agree in throughput; its mean is 30 ms over the server's
    ['29 requests: the gap is not called queueing', 29, 40.5, 10, 'consistent', THIN_WORDS],
    [
      '30 requests: it is, as before',
      30,
      40.5,
      10,
      'client-queueing',
      /30\.00 ms per request is spent in the generator/,
    ],
    ['29 requests slower than the client: not called other traffic', 29, 10.5, 30, 'consistent', THIN_WORDS],
    ['30 requests slower than the client: other traffic, as before', 30, 10.5, 30, 'traffic-extra', /slower than/],
    ['30 requests that agree: the gap and its tolerance, as before', 30, 10.6, 10, 'consistent', /within the/],
    ['1 request', 1, 40.5, 10, 'consistent', /rests on 1 request, fewer than the 30/],
  ])('%s', (_, n, clientMeanMs, serverMeanMs, verdict, detail) => {
    const c = crossCheck(n / 5, clientMeanMs, 0.5, windowOf(n, serverMeanMs));
    expect(c.verdict, c.detail).toBe(verdict);
    expect(c.detail).toMatch(detail);
    // the figures themselves are still given, marked in the report by their count
    expect(c.serverMeanMs).toBe(serverMeanMs);
  });

  it("counts against the run's own rules.minTailSamples", () => {
    const c = crossCheck(60 / 5, 40.5, 0.5, windowOf(60, 10), 0, 'arrivals', { share: 0 }, 61);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/rests on 60 requests, fewer than the 61 a mean needs/);
    expect(crossCheck(60 / 5, 40.5, 0.5, windowOf(60, 10), 0, 'arrivals', { share: 0 }, 60).verdict).toBe(
      'client-queueing',
    );
  });

  it('leaves the throughputs compared: a count, not a sample (decision 059: one request against 240 per second)', () => {
    expect(crossCheck(240, 10, 0.5, windowOf(1, 0.449)).verdict).toBe('traffic-missing');
    expect(crossCheck(240, null, 0.5, null).verdict).toBe('no-data');
    expect(crossCheck(29 / 5, null, 0.5, windowOf(29, 10)).detail).toMatch(/no latency to compare$/);
  });

  it("judges a step's and a mapped name's by the rules the step was judged with (withServer)", () => {
    const sample = (tS: number, count: number, sumS: number, read: [number, number]) =>
      emptySample(tS, {
        requestsCount: count,
        requestsSumS: sumS,
        routes: { read: { count: read[0], sumS: read[1] } },
      });
    // 1,000 requests of 10 ms in the window, 29 of them the route's
    const samples = [sample(10, 0, 0, [0, 0]), sample(15, 1000, 10, [29, 0.29])];
    const plan = { index: 0, ratePerSec: 200, rampStartS: 9, steadyStartS: 10, steadyEndS: 15 } as StepPlan;
    const step = stepWithP99({
      steadyStartS: 10,
      steadyEndS: 15,
      completedPerSec: 200,
      meanMs: 40.5,
      byName: { read: nameResult(29, { meanMs: 40.5 }) },
    });
    const r = withServer(step, plan, { samples, rttMs: 0.5, routes: { read: '/r' } }, 30);
    expect(r.crossCheck!.verdict).toBe('client-queueing');
    expect(r.byName!.read!.crossCheck).toMatchObject({ verdict: 'consistent' });
    expect(r.byName!.read!.crossCheck!.detail).toMatch(/^route \/r: .*rests on 29 requests, fewer than the 30/);
    expect(withServer(step, plan, { samples, rttMs: 0.5 }, 1001).crossCheck!.detail).toMatch(
      /rests on 1,000 requests, fewer than the 1,001 a mean needs/,
    );
  });
});
