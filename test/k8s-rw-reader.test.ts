/**
 * The k6-operator live reader against a real Prometheus (Debian's 2.42, started with the
 * remote-write receiver and native histograms), fed by a test writer speaking real remote write
 * (protobuf + snappy) in k6's metric names for 4 simulated runners of a stepped schedule against
 * a target that serves at most 130 req/s. What is simulated: the runners (their counters, the
 * operator's instance_id and the testid tag) and the target; what is real: the protocol, the
 * storage, the PromQL reads, the reader, the decision path.
 *
 * The simulated runs are stamped in the recent past and written second by second faster than
 * real time; the reader is polled after each second with that simulated clock (no sleeping).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrometheus, startPrometheus, type PrometheusHandle } from './helpers/prometheus.ts';
import { bucketIndex, remoteWrite, type FloatSeries, type HistogramSeries } from './helpers/remote-write.ts';
import { RwBuckets } from '../analysis/k8s-rw.ts';
import { stripeCount } from '../analysis/k8s-arrivals.ts';
import { RwReader, checkPrometheus } from '../harness/k8s/rw-reader.ts';
import { buildPlan, buildRecords, DEFAULT_RULES } from '../analysis/testing/builders.ts';
import { decideAttempt, type Judged } from '../analysis/decision.ts';
import { DEFAULT_GENERATOR_BOUNDS } from '../analysis/generator-symptoms.ts';
import type { BucketRecord, DecisionPolicy, StepPlan, StepResult } from '../analysis/types.ts';

const N = 4;
const CAPACITY = 130;
const RATES = [40, 80, 120, 160, 200];
const SPEC = { steps: RATES.map((ratePerSec) => ({ ratePerSec })), rampS: 0, holdS: 4, settleS: 1 };
const PLAN: StepPlan[] = buildPlan(SPEC);
const END_S = PLAN.at(-1)!.holdEndS;
const rateAt = (s: number) => PLAN.find((p) => s >= p.rampStartS && s < p.holdEndS)?.ratePerSec ?? 0;
/** Global arrivals before second s (whole rates, no ramp: the sum of the rates so far). */
const arrivalsBefore = (s: number) => Array.from({ length: s }, (_, i) => rateAt(i)).reduce((a, b) => a + b, 0);
const POLICY: DecisionPolicy = {
  rules: DEFAULT_RULES,
  bounds: DEFAULT_GENERATOR_BOUNDS,
  confirmFailedStep: false,
  rerunContaminated: false,
  maxVUsBound: 1000,
};

const bin = findPrometheus();
let prom: PrometheusHandle;

beforeAll(async () => {
  if (bin) prom = await startPrometheus({ binary: bin, targetUrl: 'http://127.0.0.1:9', remoteWrite: true });
});
afterAll(async () => {
  await prom?.stop();
});

interface Cumulative {
  iterations: number;
  reqs: number;
  dropped: number;
  buckets: Map<number, number>;
  count: number;
  sum: number;
}

/**
 * One simulated run: runner r serves the global arrivals k with k mod N = r (the operator's
 * equal segments); of each second's arrivals the first CAPACITY are served (10 ms below the
 * plateau, 300 ms above it), the rest are dropped. `silent` stops one runner's pushes from a second on.
 */
async function simulate(testid: string, silent?: { runner: number; fromS: number }) {
  const t0Ms = Date.now() - 120_000;
  const buckets = new RwBuckets({
    t0Ms,
    runners: Array.from({ length: N }, (_, i) => String(i + 1)),
    expected: (r, s) => stripeCount(r, N, arrivalsBefore(s), arrivalsBefore(s + 1)),
    silentAfterMs: 3000,
    phase: 'steps',
  });
  const records: BucketRecord[] = [];
  const reader = new RwReader({ prometheusUrl: prom.url, testid, buckets, t0Ms, sink: (r) => records.push(r) });
  const cum: Cumulative[] = Array.from({ length: N }, () => ({
    iterations: 0,
    reqs: 0,
    dropped: 0,
    buckets: new Map(),
    count: 0,
    sum: 0,
  }));
  let judged: Judged = [];
  let k = 0;
  let stopped: StepResult | null = null;
  let simDropped = 0;
  let simArrivals = 0;
  for (let s = 0; s < END_S + 4 && !stopped; s++) {
    const floats: FloatSeries[] = [];
    const histograms: HistogramSeries[] = [];
    if (s < END_S) {
      const from = arrivalsBefore(s);
      const rate = rateAt(s);
      const served = Math.min(rate, CAPACITY);
      const latencyS = rate > CAPACITY ? 0.3 : 0.01;
      simArrivals += rate;
      simDropped += rate - served;
      for (let r = 0; r < N; r++) {
        const c = cum[r]!;
        const ok = stripeCount(r, N, from, from + served);
        c.iterations += ok;
        c.reqs += ok;
        c.dropped += stripeCount(r, N, from + served, from + rate);
        const b = bucketIndex(latencyS, 3);
        c.buckets.set(b, (c.buckets.get(b) ?? 0) + ok);
        c.count += ok;
        c.sum += ok * latencyS;
      }
    }
    // every runner pushes 100 to 250 ms after the second ends, what it counted up to then
    for (let r = 0; r < N; r++) {
      if (silent && r === silent.runner && s >= silent.fromS) continue;
      const c = cum[r]!;
      const tMs = t0Ms + (s + 1) * 1000 + 100 + r * 50;
      const base = { testid, instance_id: String(r + 1), scenario: 'plateau' };
      floats.push(
        { labels: { __name__: 'k6_iterations_total', ...base }, samples: [{ value: c.iterations, tMs }] },
        {
          labels: { __name__: 'k6_http_reqs_total', ...base, expected_response: 'true', status: '200' },
          samples: [{ value: c.reqs, tMs }],
        },
        { labels: { __name__: 'k6_vus', ...base }, samples: [{ value: 5, tMs }] },
      );
      // k6 creates the dropped counter at its first drop: its first sample counts from zero
      if (c.dropped > 0)
        floats.push({
          labels: { __name__: 'k6_dropped_iterations_total', ...base },
          samples: [{ value: c.dropped, tMs }],
        });
      if (c.count > 0)
        histograms.push({
          labels: { __name__: 'k6_http_req_duration_seconds', ...base, expected_response: 'true' },
          samples: [{ tMs, schema: 3, count: c.count, sum: c.sum, buckets: new Map(c.buckets) }],
        });
    }
    await remoteWrite(prom.url, { floats, histograms });
    await reader.poll(t0Ms + (s + 1) * 1000 + 400, END_S);
    const doneS = records.length > 0 ? Math.max(...records.map((x) => x.tS)) : -1;
    while (!stopped && k < PLAN.length && doneS + 1 >= PLAN[k]!.steadyEndS) {
      const d = decideAttempt(
        judged,
        { ...PLAN[k++]!, attempt: 1, maxVUs: 100 },
        { records, probes: [], rttMs: 0 },
        POLICY,
      );
      judged = d.judged;
      // a rerun ends the simulated run too (the k8s run stops there: a rerun is a new TestRun)
      if (d.action.kind !== 'go-on') stopped = d.result;
    }
  }
  return { records, judged, stopped, notes: buckets.notes, simDropped, simArrivals };
}

/** The same schedule as the native engine's buckets would hold it (analysis/testing builders). */
function nativeVerdicts(): string[] {
  const steps = RATES.map((r) =>
    r > CAPACITY
      ? { ratePerSec: r, okPerSec: CAPACITY, droppedPerSec: r - CAPACITY, latencyMs: 300 }
      : { ratePerSec: r },
  );
  const records = buildRecords({ ...SPEC, steps });
  let judged: Judged = [];
  const out: string[] = [];
  for (const p of PLAN) {
    const d = decideAttempt(judged, { ...p, attempt: 1, maxVUs: 100 }, { records, probes: [], rttMs: 0 }, POLICY);
    judged = d.judged;
    out.push(`${p.ratePerSec}:${d.result.verdict}`);
    if (d.action.kind === 'stop') break;
  }
  return out;
}

const sum = (rs: BucketRecord[], f: (r: BucketRecord) => number) => rs.reduce((a, r) => a + f(r), 0);

describe.skipIf(!bin)('k6-operator live reader against a real Prometheus (remote write, 4 runners)', () => {
  it('the Prometheus check reads its flags: receiver and native histograms on', async () => {
    expect(await checkPrometheus(prom.url)).toMatch(/remote-write receiver and native histograms/);
  });

  it('stops at the step the plateau implies, as the native buckets of that schedule do, with counts merged exactly', async () => {
    const run = await simulate('knee-1');
    const verdicts = run.judged.map((j) => `${j.ratePerSec}:${j.verdict}`);
    expect(verdicts).toEqual(['40:holds', '80:holds', '120:holds', '160:fails']);
    expect(verdicts).toEqual(nativeVerdicts());
    expect(run.stopped?.index).toBe(3);
    expect(run.stopped?.generatorBound).toBeFalsy();
    // one bucket per runner per second, from every runner
    const sources = new Set(run.records.map((r) => r.source));
    expect([...sources].sort()).toEqual(['k8s/1', 'k8s/2', 'k8s/3', 'k8s/4']);
    // exact: the runners' started and dropped add up to the schedule's arrivals of the seconds read
    const lastS = Math.max(...run.records.map((r) => r.tS));
    const scheduled = arrivalsBefore(lastS + 1);
    expect(sum(run.records, (r) => r.started + r.dropped)).toBe(scheduled);
    const droppedScheduled = Array.from({ length: lastS + 1 }, (_, s) => Math.max(0, rateAt(s) - CAPACITY)).reduce(
      (a, b) => a + b,
      0,
    );
    expect(sum(run.records, (r) => r.dropped)).toBe(droppedScheduled);
    expect(sum(run.records, (r) => r.started)).toBe(scheduled - droppedScheduled);
    // the latency from the native histograms: near 10 ms below the plateau, near 300 ms above it
    const held = run.judged[2]!;
    const failed = run.judged[3]!;
    const p50 = (r: StepResult) => r.latency.find((p) => p.q === 50)!.valueMs!;
    expect(p50(held)).toBeGreaterThan(9);
    expect(p50(held)).toBeLessThan(11);
    expect(p50(failed)).toBeGreaterThan(270);
    expect(p50(failed)).toBeLessThan(330);
    expect(run.notes).toEqual([]);
  });

  it('a runner whose series stop mid-step makes that step generator-bound, naming the runner', async () => {
    // runner 3 (index 2) goes quiet in the middle of step 2 (80 req/s, seconds 4 to 7)
    const run = await simulate('silent-1', { runner: 2, fromS: 5 });
    expect(run.judged.map((j) => `${j.ratePerSec}:${j.verdict}`)).toEqual(['40:holds', '80:fails']);
    expect(run.stopped?.index).toBe(1);
    expect(run.stopped?.generatorBound).toBe(true);
    expect(run.stopped?.dropped).toBeGreaterThan(0);
    expect(run.notes.join('\n')).toMatch(/runner 3 pushed nothing after 5\.\d s \(its series stopped\)/);
    // the three that kept pushing are still counted exactly
    const others = run.records.filter((r) => r.source !== 'k8s/3');
    const lastS = Math.max(...run.records.map((r) => r.tS));
    const expected = [0, 1, 3].reduce((a, r) => a + stripeCount(r, N, 0, arrivalsBefore(lastS + 1)), 0);
    expect(sum(others, (r) => r.started + r.dropped)).toBe(expected);
  });
});
