import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../analysis/analyze.ts';
import { costPerRequest, SECONDS_PER_MONTH } from '../analysis/models/cost.ts';
import { costAtSloCapacity } from '../analysis/slo.ts';
import { buildInput, fakeRun, type FakeStep } from '../analysis/testing/builders.ts';
import { compareRows, renderCompare } from '../reports/compare.ts';
import { settingDifferences, sizedDifferences } from '../analysis/compare/differences.ts';
import { decideGate } from '../analysis/gate/decide.ts';
import { IMPORTED_TARGET } from '../analysis/compare/differences.ts';
import { withNames, type FakeName } from '../analysis/compare/testing.ts';
import { compareDocument } from '../reports/compare-json.ts';
import type { RunResult, SloConfig } from '../analysis/types.ts';
import { analyzeStore } from '../harness/report.ts';

const A = fakeRun({ steps: [100, 200, 300, 400].map((r) => ({ ratePerSec: r, okPerSec: r <= 300 ? r : 310 })) });
const B = fakeRun({
  steps: [100, 200, 300, 400, 500].map((r) => ({ ratePerSec: r, okPerSec: r <= 400 ? r : 405, latencyMs: 8 })),
});

describe('plateau compare', () => {
  it('lines the steps up at equal offered rates', () => {
    const rows = compareRows(A, B);
    expect(rows.map((r) => r.ratePerSec)).toEqual([100, 200, 300, 400, 500]);
    expect(rows[4].a).toBeNull();
    expect(rows[4].b?.ratePerSec).toBe(500);
  });

  it("a step's verdict in the table carries its classification, as the note under it does", () => {
    // step 2 of A held while its generator's loop was held up 130 ms (over the 100 ms bound)
    const limited = fakeRun({
      steps: [100, 200, 300, 400].map((r) => ({
        ratePerSec: r,
        okPerSec: r <= 300 ? r : 310,
        ...(r === 200 ? { loopDelayMaxMs: 130 } : {}),
      })),
    });
    expect(limited.steps[1].generatorLimited).toBeDefined();
    expect(renderCompare(limited, B)).toMatch(/\| 200 \|.*\| holds \(generator-limited\) \| holds \|$/m);
  });

  it("names the rates at which a run had the generator's own delays in its latencies, a stall under the bound too", () => {
    const stalled = (at: number[], ms: number) =>
      fakeRun({
        steps: [100, 200, 300, 400].map((r) => ({
          ratePerSec: r,
          okPerSec: r <= 300 ? r : 310,
          ...(at.includes(r) ? { loopDelayMaxMs: ms } : {}),
        })),
      });
    // 72.9 ms: over the warning's 50 ms, under the verdict's 100 ms, so the steps held plainly
    expect(renderCompare(stalled([200, 300], 72.9), stalled([400], 72.9))).toContain(
      "The generator's own delays are in the latencies of A at 200, 300 req/s and of B at 400 req/s (event-loop delay over 50 ms, or held generator-limited): a latency change there says as much of the generator as of the target.",
    );
    expect(renderCompare(A, stalled([300], 72.9))).toContain('of B at 300 req/s (event-loop');
    expect(renderCompare(A, B)).not.toContain("generator's own delays");
    // --json says it of each step
    const [sa, sb] = [stalled([200, 300], 72.9), stalled([400], 72.9)];
    const json = compareDocument({ a: sa, b: sb, rows: compareRows(sa, sb), warnings: [], cost: null });
    const rows = json.rates.map((r) => [r.ratePerSec, r.a?.generatorInLatencies, r.b?.generatorInLatencies]);
    expect(rows).toEqual([
      [100, false, false],
      [200, true, false],
      [300, true, false],
      [400, false, true],
    ]);
  });

  it('shows capacity, knee and the change; the same grid is no difference, wherever each run stopped', () => {
    const md = renderCompare(A, B);
    expect(md).toContain('| Capacity | 300.0 req/s | 400.0 req/s | +33.33% |');
    expect(md).not.toContain('steps (offered rates) differ');
    expect(md).toMatch(/\| 500 \| – \| 405\.0 \|/);
    // a run with no step of data (interrupted in preflight) has no peak, not a peak of 0
    const none = { ...A, steps: [], peakPerSec: 0, peakStep: null, kneeStep: null, capacityPerSec: null };
    expect(renderCompare(none, B)).toMatch(/\| Peak \| – \| [\d.,]+ req\/s \| – \|/);
    // the USL's predicted peak is a model's extrapolation (it moved 10% between runs of one target): no headline row
    expect(B.models!.usl).toMatchObject({ extrapolated: true });
    expect(md).not.toContain('USL');
    expect(md).not.toContain('predicted');
    // not even where both fits span their peak: a model's figure is no difference between runs
    const spanning = { ...B, models: { ...B.models!, usl: { ...B.models!.usl!, extrapolated: false } } };
    expect(renderCompare(spanning, spanning)).not.toContain('USL');
    // --json keeps each run's own figure, marked, and gives no change between them
    const doc = compareDocument({ a: A, b: B, rows: compareRows(A, B), warnings: [], cost: null });
    expect(doc.schemaVersion).toBe(3);
    expect(doc.b.uslPeakExtrapolated).toBe(true);
    expect(doc.b.uslPeakPerSec).toBe(B.models!.usl!.peakPerSec);
    expect(Object.keys(doc.change).sort()).toEqual(['capacity', 'peak', 'sloCapacity']);
    // a rerun (the same rate twice) is no difference either; another grid is
    const rerun = fakeRun({ steps: [100, 200, 300, 300].map((r) => ({ ratePerSec: r })) });
    expect(settingDifferences(A, rerun).join('\n')).not.toMatch(/steps/);
    const finer = fakeRun({ steps: [100, 150, 200, 250].map((r) => ({ ratePerSec: r })) });
    expect(settingDifferences(A, finer).join('\n')).toMatch(
      /steps \(offered rates\) differ: from 100 by 100 req\/s vs from 100 by 50 req\/s/,
    );
  });

  it('marks a p99 change between percentiles on too few samples, with a footnote for the marks', () => {
    const few = (latencyMs: number) => fakeRun({ steps: [20, 40].map((r) => ({ ratePerSec: r, latencyMs })) });
    const md = renderCompare(few(10), few(20));
    // mdCell escapes the marks (\\*), as in a run's own report
    const p99s = /\| 20 \| .* \| ~[\d.]+ ms\\\* \(n=[\d,]+\) \| ~[\d.]+ ms\\\* \(n=[\d,]+\) \| ~\+[\d.]+%\\\* \|/;
    expect(md).toMatch(p99s);
    expect(md).toContain('\\* unreliable: fewer than ');
    // reliable p99s on both sides: a plain change (A and B hold 3,000 samples from 300/s)
    expect(renderCompare(A, B)).toMatch(/\| 400 \| .* \(n=10,000\) \| -[\d.]+% \| 0\.00% \|/);
    const many = (latencyMs: number) => fakeRun({ steps: [400, 500].map((r) => ({ ratePerSec: r, latencyMs })) });
    expect(renderCompare(many(10), many(20))).not.toMatch(/~[+-][\d.]+%|unreliable/);
  });

  it('names no knee for a run that established no capacity, only the highest step it held', () => {
    // every planned step held: throughput never bent, so there is no knee to name
    const allHeld = fakeRun({ steps: [100, 200, 300].map((r) => ({ ratePerSec: r })) });
    expect(allHeld.capacityPerSec).toBeNull();
    expect(renderCompare(A, allHeld)).toContain('| Knee | step 3 (300 req/s) | – (held up to step 3, 300 req/s) |  |');
    // its capacity cell says what the gate judges: a lower bound, and a change that says which way it bounds
    expect(renderCompare(A, allHeld)).toContain('| Capacity | 300.0 req/s | at least 300.0 req/s | at least +0.00% |');
    expect(renderCompare(allHeld, A)).toContain('| Capacity | at least 300.0 req/s | 300.0 req/s | at most +0.00% |');
    expect(renderCompare(B, allHeld)).toContain(
      '| Capacity | 400.0 req/s | at least 300.0 req/s | a fall of at most 25.00% |',
    );
    // two bounds: no change, and why under the table (a change between them compares the plans' top rates)
    const both = renderCompare(allHeld, allHeld);
    expect(both).toContain('| Capacity | at least 300.0 req/s | at least 300.0 req/s | – (both lower bounds) |');
    expect(both).toContain(
      '\nBoth runs held every step they planned: lower bounds, not capacities; raise the top rate of both to compare them.\n',
    );
    expect(renderCompare(A, allHeld)).not.toContain('Both runs held');
  });

  it("warns where the generator's threads or HTTP client differ, or the scenario: its name, else its code (a review read 'no differences')", () => {
    const engineAs = (r: RunResult, engine: string) => ({ ...r, environment: { ...r.environment, engine } });
    const one = engineAs(A, 'native (1 thread), socket HTTP client');
    const two = engineAs(A, 'native (2 worker threads), socket HTTP client');
    expect(settingDifferences(one, two)).toEqual([
      "generator's threads and HTTP client differ: native (1 thread), socket HTTP client vs native (2 worker threads), socket HTTP client: the generator's own limit (how many arrivals it sends on time) is theirs: a capacity near it may be the generator's; compare runs of one setup (--workers, http.client)",
    ]);
    // a run stopped before its engine started records the engine's name alone: unknown, not another
    expect(settingDifferences(A, two)).toEqual([]);
    const named = (r: RunResult, scenario?: string, scenarioDigest?: string) => ({
      ...r,
      ...(scenario !== undefined ? { scenario } : {}),
      ...(scenarioDigest !== undefined ? { scenarioDigest } : {}),
    });
    expect(settingDifferences(named(A, 'rv-shop'), named(A, 'rv-shop-fail5'))).toEqual([
      "scenario differs: rv-shop vs rv-shop-fail5: the traffic's code may differ even where its names and shares agree (what each request sends, which fail on purpose); compare runs of one scenario",
    ]);
    expect(
      settingDifferences(named(A, 'shop', 'sha256:aaaaaaaaaaaa'), named(A, 'shop', 'sha256:bbbbbbbbbbbb')),
    ).toEqual([
      'scenario "shop" code or data differs: sha256:aaaaaaaaaaaa vs sha256:bbbbbbbbbbbb: its module, a file it imports or a data file changed: the traffic\'s code may differ even where its names and shares agree; compare runs of one version of it',
    ]);
    // a run recorded before either (a baseline of last week): unknown, never a difference
    expect(settingDifferences(named(A, 'shop', 'sha256:aaaaaaaaaaaa'), named(A, 'shop'))).toEqual([]);
    expect(settingDifferences(A, named(A, 'rv-shop'))).toEqual([]);
    // a warning, never a reason the gate cannot judge
    const gate = decideGate(named(A, 'rv-shop-fail5'), named(A, 'rv-shop'), 0.05);
    expect(gate.status).toBe('pass');
    expect(gate.warnings).toEqual([expect.stringMatching(/^scenario differs: rv-shop vs rv-shop-fail5: /)]);
  });

  it('says a random source drew other rows in each run (its run id, or another seed), never where they drew alike', () => {
    const drawn = (r: RunResult, draws: Record<string, { by: 'seed' | 'run id'; text: string }>): RunResult => ({
      ...r,
      traffic: { entries: [{ name: 'read', weight: 1, transaction: false }], randomDraws: draws },
    });
    const byRun = (id: string) => ({ accounts: { by: 'run id' as const, text: id } });
    expect(settingDifferences(drawn(A, byRun('r1')), drawn(A, byRun('r2')))).toEqual([
      `random rows of data source "accounts" differs: run id r1 vs run id r2: each run drew other rows, so a difference may be the data's: give the source a seed (data: { accounts: { ..., order: 'random', seed: 'ab' } }) and both runs draw the same`,
    ]);
    const seeded = { accounts: { by: 'seed' as const, text: 'ab' } };
    expect(settingDifferences(drawn(A, seeded), drawn(A, seeded))).toEqual([]);
    // a seed 'r1' draws what run r1 drew unseeded (decision 057): the same rows
    expect(settingDifferences(drawn(A, byRun('r1')), drawn(A, { accounts: { by: 'seed', text: 'r1' } }))).toEqual([]);
    expect(settingDifferences(drawn(A, seeded), drawn(A, { accounts: { by: 'seed', text: 'cd' } }))[0]).toMatch(
      /^random rows of data source "accounts" differs: seed "ab" vs seed "cd": /,
    );
    // a source in one run only, or a run recorded before: unknown here
    expect(settingDifferences(drawn(A, byRun('r1')), drawn(A, { other: { by: 'run id', text: 'r2' } }))).toEqual([]);
    expect(settingDifferences(A, drawn(A, byRun('r2')))).toEqual([]);
    // a warning, never a reason the gate cannot judge
    expect(decideGate(drawn(A, byRun('r2')), drawn(A, byRun('r1')), 0.05).status).toBe('pass');
  });

  it("a run directory's RunResult carries its run.json's scenario, for the difference above", () => {
    expect(analyzeStore('test/fixtures/runs/mix').result.scenario).toBe('shop');
  });

  it('says the deadlines differ (an audit: 10,000 against 400 ms passed the gate, naming only the threads); the gate cannot judge where a request timed out', () => {
    const timed = (r: RunResult, timeoutMs: number, timeouts = 0, transactionTimeoutMs = 30_000): RunResult => ({
      ...r,
      http: { timeoutMs, transactionTimeoutMs },
      steps: r.steps.map((s, i) =>
        i === r.steps.length - 1 ? { ...s, errors: { ...s.errors, timeout: timeouts } } : s,
      ),
    });
    expect(settingDifferences(timed(A, 10_000, 0), timed(A, 400, 961))).toEqual([
      'deadlines differ: http.timeoutMs 10000 vs 400 ms: a request slower than its deadline fails (kind timeout), and these runs had 0 and 961 in their judged steps (A, B): they count other requests as failed; compare runs of one timeout',
    ]);
    const gate = decideGate(timed(A, 400, 961), timed(A, 10_000, 0), 0.05);
    expect([gate.status, gate.exitCode, gate.headline]).toEqual([
      'invalid',
      3,
      "cannot judge: the deadlines differ (http.timeoutMs 10000 ms in the baseline, 400 ms in the run), and requests timed out (0 in the baseline's judged steps, 961 in the run's): a request slower than its deadline fails, so the runs count other requests as failed; use the baseline's http settings or save a new baseline",
    ]);
    // none timed out: a warning, the decision stands
    const quiet = decideGate(timed(A, 400), timed(A, 10_000), 0.05);
    expect(quiet.status).toBe('pass');
    expect(quiet.warnings).toEqual([
      expect.stringMatching(/^deadlines differ: http\.timeoutMs 10000 vs 400 ms: no request timed out in either run/),
    ]);
    // a transaction's deadline only where either mix has a transaction; a run recorded before (or an import): unknown
    expect(settingDifferences(timed(A, 400, 0, 30_000), timed(A, 400, 0, 5_000))).toEqual([]);
    const withTx = (r: RunResult): RunResult => ({
      ...r,
      traffic: { entries: [{ name: 'checkout', weight: 1, transaction: true }] },
    });
    expect(settingDifferences(withTx(timed(A, 400, 0, 30_000)), withTx(timed(A, 400, 0, 5_000)))).toEqual([
      expect.stringMatching(/^deadlines differ: http\.transactionTimeoutMs 30000 vs 5000 ms: no request timed out/),
    ]);
    expect(settingDifferences(A, timed(A, 400, 961))).toEqual([]);
    // the run directory's RunResult carries them (an import's would be k6's: none)
    expect(analyzeStore('test/fixtures/runs/mix').result.http).toEqual({
      timeoutMs: 10_000,
      transactionTimeoutMs: 30_000,
    });
  });

  it("a k6 import's VUs are said as k6 allocated them, not as the generator's headroom", () => {
    // an import's VUs are those k6 allocated, not its script's maxVUs: not said to be headroom
    const imported = (r: RunResult, maxVUs: number) => ({
      ...r,
      vus: { ...r.vus, maxVUs },
      environment: { ...r.environment, k6Output: 'out.ndjson' },
    });
    expect(settingDifferences(imported(A, 30), imported(A, 12))).toEqual([
      "VUs allocated at most (a k6 import: vus_max) differs: 30 vs 12: an import reads the VUs k6 allocated, not the script's maxVUs: a difference may be the load's, not the headroom's",
    ]);
  });

  it('a run recorded before rules carried the rate unit is no other rule; a run of transactions is another unit', () => {
    const withUnit = { ...A, rules: { ...A.rules, rateUnit: 'req/s' as const } };
    expect(settingDifferences(A, withUnit)).toEqual([]);
    const stricter = { ...A, rules: { ...A.rules, deliveryMin: 0.95 } };
    expect(settingDifferences(A, stricter)).toEqual([
      'rules differ: rules.deliveryMin 0.9 vs 0.95: the stop rule differs, so the knee means different things',
    ]);
    // minTailSamples moves no knee: which percentiles are trusted
    const tails = { ...A, rules: { ...A.rules, minTailSamples: 3 } };
    expect(settingDifferences(A, tails)).toEqual([
      `rules differ: rules.minTailSamples ${A.rules.minTailSamples} vs 3: a percentile is trusted on other sample counts, which the classification of a failed step and the per-name comparison read`,
    ]);
    const mix = { ...A, traffic: { entries: [{ name: 'checkout', weight: 1, transaction: true }] } };
    expect(settingDifferences(A, mix)).toEqual([
      'rate unit differs: req/s vs arrivals/s: one run counts arrivals of several requests (transactions), the other single requests: its rates are not the same quantity',
    ]);
  });

  it('another mix (entries or shares) is a difference; the same shares by other weights, or one entry renamed, are not', () => {
    const traffic = (...es: [string, number, boolean?][]) => ({
      ...A,
      traffic: { entries: es.map(([name, weight, transaction]) => ({ name, weight, transaction: !!transaction })) },
    });
    const shop = traffic(['read', 70], ['write', 25], ['checkout', 5, true]);
    expect(settingDifferences(shop, traffic(['write', 5], ['read', 14], ['checkout', 1, true]))).toEqual([]);
    expect(settingDifferences(traffic(['GET /', 1]), traffic(['scenario renamed', 1]))).toEqual([]);
    expect(settingDifferences(shop, traffic(['read', 80], ['write', 15], ['checkout', 5, true]))).toEqual([
      'traffic mix differs (changed from A to B: read 70% → 80%, write 25% → 15%): a capacity is a property of the mix; compare runs of one mix',
    ]);
    const many = traffic(...Array.from({ length: 9 }, (_, i): [string, number] => [`entry ${'abcdefghi'[i]}`, 1]));
    expect(settingDifferences(shop, many).join('\n')).toMatch(
      /\(only in A: read 70%, write 25%, checkout 5% \(a transaction\); only in B: entry a 11.1%, entry b 11.1%, entry c 11.1%, entry d 11.1% and 5 more\): /,
    );
    // an entry that turned from a transaction into a request under its name is another mix
    expect(settingDifferences(shop, traffic(['read', 70], ['write', 25], ['checkout', 5])).join('\n')).toMatch(
      /^traffic mix differs \(changed from A to B: checkout a transaction → a request\): /m,
    );
    // one entry of many renamed: the difference names it, not the first entries both runs share
    const nine = (last: string) =>
      traffic(...Array.from({ length: 9 }, (_, i): [string, number] => [i === 8 ? last : `entry ${'abcdefgh'[i]}`, 1]));
    expect(settingDifferences(nine('old name'), nine('new name'))).toEqual([
      'traffic mix differs (only in A: old name 11.1%; only in B: new name 11.1%): a capacity is a property of the mix; compare runs of one mix',
    ]);
    // many changed: the first few and a count
    const shares = (w: number) =>
      traffic(...Array.from({ length: 9 }, (_, i): [string, number] => [`e${i}`, i === 0 ? w : 1]));
    expect(settingDifferences(shares(1), shares(2)).join('\n')).toMatch(
      /\(changed from A to B: e0 11.1% → 20%, e1 11.1% → 10%, e2 11.1% → 10%, e3 11.1% → 10% and 5 more\): /,
    );
    // the step grid is told in the runs' unit (arrivals/s with a transaction)
    const shifted = { ...shop, steps: shop.steps.map((st) => ({ ...st, ratePerSec: st.ratePerSec + 25 })) };
    expect(settingDifferences(shop, shifted).join('\n')).toMatch(
      /steps \(offered rates\) differ: from \d+ by \d+ arrivals\/s vs /,
    );
    // an import of the user's own k6 script records no entries: no mix to compare
    const imported = { ...A, traffic: { entries: [], iterations: { requestsPerArrival: 1 } } };
    expect(settingDifferences(shop, imported).join('\n')).not.toMatch(/traffic mix/);
  });

  it("a loopback target on another port (the demo's, ephemeral) is the same target; another host is not", () => {
    const at = (target: string) => ({ ...A, target });
    expect(settingDifferences(at('http://127.0.0.1:33063/orders'), at('http://127.0.0.1:45661/orders'))).toEqual([]);
    expect(
      settingDifferences(at('https://staging.example/orders'), at('https://prod.example/orders')).join('\n'),
    ).toMatch(/target differs/);
  });

  it('a k6 import without --target has its target unknown, not another: the fix is the gate\'s (it said "make sure both runs hit the same service")', () => {
    const at = (target: string) => ({ ...A, target });
    const json = at(`${IMPORTED_TARGET}queue.ndjson`);
    const csv = at(`${IMPORTED_TARGET}queue.csv.gz`);
    const fix =
      'a k6 import names its target only when told (plateau import k6 FILE --target URL): import both runs with the same --target';
    expect(settingDifferences(json, csv)).toEqual([
      `target unknown: A and B are k6 runs imported without --target (from queue.ndjson and queue.csv.gz): ${fix}`,
    ]);
    expect(settingDifferences(at('https://prod.example/orders'), csv)).toEqual([
      `target unknown: B is a k6 run imported without --target (from queue.csv.gz), A's is https://prod.example/orders: ${fix}`,
    ]);
    // the gate gives the same words: a warning where both are unknown (decision 051), a reason where one is named
    const gate = decideGate(
      { ...json, rules: { ...json.rules, imported: true } },
      { ...csv, rules: { ...csv.rules, imported: true } },
      0.05,
    );
    expect(gate.reasons).toEqual([]);
    expect(gate.warnings).toEqual([
      `target unknown: the baseline and the run are k6 runs imported without --target (from queue.csv.gz and queue.ndjson): ${fix}`,
    ]);
    const named = decideGate(
      { ...json, rules: { ...json.rules, imported: true } },
      at('https://prod.example/orders'),
      0.05,
    );
    expect(named.reasons.join('\n')).toContain(`${fix}, or save a baseline of this target`);
    // the same file's name twice is no evidence of one service: unknown too (it was said nothing)
    expect(settingDifferences(json, json)).toEqual([
      `target unknown: A and B are k6 runs imported without --target (from queue.ndjson and queue.ndjson): ${fix}`,
    ]);
  });

  it('comparable runs produce no warning; engine, topology and RTT differences do', () => {
    expect(settingDifferences(A, A)).toEqual([]);
    const target = 'http://staging:8080/orders';
    const C = {
      ...A,
      target,
      engine: 'k6',
      environment: { ...A.environment, topology: '3 replicas' },
      rtt: { ...A.rtt!, httpMedianMs: 40 },
    };
    const D = { ...A, target, environment: { ...A.environment, topology: '2 replicas' } };
    const w = settingDifferences(D, C).join('\n');
    expect(w).toMatch(/engine differs/);
    expect(w).toMatch(/topology differs: 2 replicas vs 3 replicas: an A\/B is only valid on the same topology/);
    expect(w).toMatch(/RTT/);
  });

  it("on loopback the RTT is the machine's noise, and max VUs sized a little apart are one headroom", () => {
    const loop = (httpMedianMs: number, maxVUs: number) => ({
      ...A,
      target: 'http://127.0.0.1:8091/items',
      rtt: { ...A.rtt!, httpMedianMs },
      vus: { ...A.vus, maxVUs },
    });
    expect(settingDifferences(loop(1.03, 164), loop(0.517, 172))).toEqual([]);
    // a host named loopback is no loopback address
    const named = (r: RunResult) => ({ ...r, target: 'https://loopback.example.com/items' });
    expect(settingDifferences(named(loop(1.03, 164)), named(loop(3.5, 164))).join('\n')).toMatch(/RTT/);
    // far apart but neither given: plateau sized both, so it is no setting and no warning, but information
    expect(settingDifferences(loop(1.03, 164), loop(1.03, 400))).toEqual([]);
    const sized = (maxVUs: number, sizedFrom: 'warmup' | 'samples') => ({
      ...loop(1.03, maxVUs),
      traffic: { entries: [], sizedFrom },
    });
    expect(sizedDifferences(sized(420, 'samples'), sized(1256, 'warmup'))).toEqual([
      "max VUs differs: 420 vs 1256: no setting (no vus.max given): plateau sized each run's VUs from its time per arrival (preflight's sample arrivals' vs the warmup's), so they follow the target's speed; it matters only where a run dropped arrivals for want of VUs",
    ]);
    expect(renderCompare(sized(420, 'samples'), sized(1256, 'warmup'))).toMatch(
      /^# plateau compare: A .* vs B .*\n\nDerived by plateau, not set:\n\n- max VUs differs: 420 vs 1256: no setting/,
    );
    expect(renderCompare(sized(420, 'samples'), sized(1256, 'warmup'))).not.toContain('differ in their settings');
    // set in the config (vus.max), a difference is the user's, however small
    const set = (maxVUs: number) => ({ ...loop(1.03, maxVUs), vus: { ...A.vus, maxVUs, configuredMax: maxVUs } });
    expect(settingDifferences(set(164), set(172))).toEqual([
      "max VUs differs: 164 vs 172: the generator's headroom differs",
    ]);
    expect(settingDifferences(set(164), loop(1.03, 172))).toHaveLength(1);
    expect(sizedDifferences(set(164), set(172))).toEqual([]);
    expect(settingDifferences(set(164), set(164))).toEqual([]);
  });

  it("a different container CPU quota is a different generator; the cgroup's path alone is not", () => {
    const q = (cpuQuota: string) => ({ ...A, environment: { ...A.environment, cpuQuota } });
    expect(
      settingDifferences(
        q('2 CPUs (cgroup v2 cpu.max 200000 100000 in /sys/fs/cgroup)'),
        q('1.5 CPUs (cgroup v2 cpu.max 150000 100000 in /sys/fs/cgroup)'),
      ),
    ).toEqual(['generator CPU quota differs: 2 CPUs vs 1.5 CPUs: the generator had a different share of CPU']);
    expect(settingDifferences(A, q('2 CPUs (cgroup v1 in /a)'))).toEqual([
      'generator CPU quota differs: no CPU quota vs 2 CPUs: the generator had a different share of CPU',
    ]);
    expect(settingDifferences(q('2 CPUs (cgroup v1 in /docker/a)'), q('2 CPUs (cgroup v1 in /docker/b)'))).toEqual([]);
  });

  it('escapes target-controlled text', () => {
    expect(renderCompare({ ...A, runId: 'a|<b>' }, B)).toContain('a\\|&lt;b>');
  });
});

/** Two request names and a transaction: `over` changes a name's figures at a rate. */
function shop(run: RunResult, over: (name: string, ratePerSec: number) => FakeName = () => ({})): RunResult {
  return withNames(run, (s) => ({
    'read order': { perSec: 0.7 * s.ratePerSec, p99Ms: 10, ...over('read order', s.ratePerSec) },
    'create order': { perSec: 0.25 * s.ratePerSec, p99Ms: 30, ...over('create order', s.ratePerSec) },
    checkout: { perSec: 0.05 * s.ratePerSec, p99Ms: 80, transaction: true, ...over('checkout', s.ratePerSec) },
  }));
}

describe('plateau compare by name', () => {
  const names = shop(A);
  const slower = shop(B, (n) =>
    n === 'read order' ? { p99Ms: 20 } : n === 'checkout' ? { p99Ms: 400, reliable: false } : {},
  );
  const doc = (a: RunResult, b: RunResult) =>
    compareDocument({ a, b, rows: compareRows(a, b), warnings: settingDifferences(a, b), cost: null });

  it('says a rise seen at one rate alone beside the comparison, not among the regressions', () => {
    const base = fakeRun({ steps: [100, 200, 300, 400].map((r) => ({ ratePerSec: r, okPerSec: r <= 300 ? r : 310 })) });
    const named = (slowAt: number | null) =>
      withNames(base, (st) => ({
        read: { perSec: 0.7 * st.ratePerSec, p99Ms: st.ratePerSec === slowAt ? 40 : 10 },
        write: { perSec: 0.3 * st.ratePerSec, p99Ms: 30 },
      }));
    const md = renderCompare(named(null), named(200));
    // 300 is past 80% of the knee: its error rates compared, its tails not, and the bill says so
    expect(md).toContain(
      'No name regressed at the 3 rates compared (tails compared at 4 of 6 name-rates: 4 by p99; at 2, the rate was left out of the latency comparison (listed with why); error rates compared at all 6).',
    );
    expect(md).toContain(
      'Not counted as regressions, each seen at too few of the rates where it was judged (a regression needs two, and half of those from the lowest it rose at; a tail near the knee swings from run to run): read p99 at 200 req/s',
    );
    expect(md).not.toContain('**Names that regressed');
    // its row says it rose, unflagged
    expect(md).toMatch(/^\| read \|.*\| p99 rose \(unconfirmed\) \|$/m);
    expect(md).not.toContain('⚠️');
    const [a, b] = [named(null), named(200)];
    const doc = compareDocument({ a, b, rows: compareRows(a, b), warnings: [], cost: null });
    expect(doc.nameRegressions).toEqual([]);
    expect(doc.nameUnconfirmed.map((x) => [x.name, x.metric, x.ratePerSec])).toEqual([['read', 'p99', 200]]);
  });

  it('runs without names compare as before: no per-name section, no byName, no name regressions', () => {
    expect(renderCompare(A, B)).not.toMatch(/By name|name/i);
    const d = doc(A, B);
    expect(d.rates.every((r) => !('byName' in r))).toBe(true);
    expect(d).toMatchObject({ names: null, nameRegressions: [], nameWarnings: [] });
  });

  it('shows each name at the rates both held, and warns of the one whose p99 doubled; an unreliable p99 is not compared', () => {
    const md = renderCompare(names, slower);
    expect(md).toContain('## By name at equal offered rates');
    expect(md).toContain(
      '- read order: p99 regressed at 100, 200 req/s, rates both held; worst at 100 req/s: 10.0 ms (n=3,000) in A, 20.0 ms (n=3,000) in B (+100.00%)',
    );
    // A failed 400 (its knee is 300), and 300 is past 80% of that lower capacity: tails up to 200
    expect(md).toContain('- Not compared at 400 req/s: A fails');
    expect(md).toContain(
      '- Left out of the latency comparison only at 300 req/s (error rates compared): 100% of the lower knee (300 req/s), past the 80% up to which tails are compared',
    );
    expect(md).toContain('### 200 req/s (A step 2, B step 2)');
    expect(md).toContain(
      '### 300 req/s (A step 3, B step 3; error rates only: left out of the latency comparison, said above)',
    );
    expect(md).toMatch(
      /^\| read order \| 210\.0 \| 210\.0 \| .* \| not compared \(rate left out\) \| 0\.00% \| 0\.00% \|  \|$/m,
    );
    expect(md).toMatch(
      /\| read order \| 140\.0 \| 140\.0 \| 10\.0 ms \(n=3,000\) \| 20\.0 ms \(n=3,000\) \| \+100\.00% \| 0\.00% \| 0\.00% \| ⚠️ p99 \|/,
    );
    expect(md).toMatch(
      /\| checkout \(transaction\) \| .* \| ~400 ms\\\* \(n=3,000\) \| not compared \(few samples\) \| 0\.00% \| 0\.00% \|  \|/,
    );
    expect(md.match(/: (p99|error rate) regressed/g)).toEqual([': p99 regressed']);
  });

  it('--json: a byName list on each rate both held, the regressions as values and in words', () => {
    const d = doc(names, slower);
    expect(d.rates.filter((r) => r.byName).map((r) => r.ratePerSec)).toEqual([100, 200, 300]);
    // at 300 (past 80% of the knee) the error rates alone
    expect(d.rates[2].byName!.map((n) => n.tail.compared)).toEqual([false, false, false]);
    const at100 = d.rates[0].byName!;
    expect(at100.map((n) => [n.name, n.transaction, n.regressed.p99, n.p99Compared])).toEqual([
      ['read order', false, true, true],
      ['create order', false, false, true],
      ['checkout', true, false, false],
    ]);
    expect(at100[0].change).toEqual({ p99: 1, errorRatePoints: 0 });
    expect(at100[2].change.p99).toBeNull();
    expect(d.nameRegressions.map((r) => [r.name, r.metric, r.ratePerSec])).toEqual([
      ['read order', 'p99', 100],
      ['read order', 'p99', 200],
    ]);
    expect(d.nameWarnings).toHaveLength(1);
    expect(d.names).toMatchObject({ added: [], removed: [], withoutNames: null });
    expect(d.names!.skipped.map((x) => [x.ratePerSec, x.latencyOnly ?? false])).toEqual([
      [300, true],
      [400, false],
      [500, false],
    ]);
    // a rate one run alone offered is listed too, with why
    expect(d.names!.skipped[2]).toEqual({ ratePerSec: 500, a: 'did not offer it', b: null });
  });

  it('--json: the tail judged (a p90 where the p99s rest on too few samples) with its values, regressed.tail beside the p99-only fields', () => {
    const p90 = (ms: number) => (s: { ratePerSec: number }) => ({
      'read order': { perSec: s.ratePerSec, p99Ms: 5 * ms, reliable: false, p90Ms: ms, completed: 400 },
    });
    const d = doc(withNames(A, p90(10)), withNames(B, p90(20)));
    const row = d.rates[0].byName![0];
    expect(row.tail).toEqual({
      q: 90,
      a: { valueMs: 10, samples: 400, reliable: true },
      b: { valueMs: 20, samples: 400, reliable: true },
      compared: true,
      change: 1,
      regressed: true,
    });
    expect(row.regressed).toEqual({ tail: true, p99: false, errorRate: false });
    expect(row.change.p99).toBeNull();
    // the p99 judged: tail.a and tail.b are the p99s
    const p99Row = doc(names, slower).rates[0].byName![0];
    expect(p99Row.tail).toMatchObject({ q: 99, a: { valueMs: 10 }, b: { valueMs: 20 }, regressed: true });
    expect(p99Row.regressed).toEqual({ tail: true, p99: true, errorRate: false });
  });

  it('a name in only one run is listed as added or removed, not compared', () => {
    const b = withNames(B, (s) => ({ 'read order': { perSec: s.ratePerSec }, search: { p99Ms: 900 } }));
    const md = renderCompare(names, b);
    expect(md).toContain('- Only in B (added, not compared): search');
    expect(md).toContain('- Only in A (removed, not compared): create order, checkout');
    expect(md).not.toMatch(/\| search \|/);
    expect(doc(names, b).names).toMatchObject({ added: ['search'], removed: ['create order', 'checkout'] });
    // one run without names: the other's are listed, none compared
    expect(renderCompare(A, names)).toContain('- A recorded no per-name results');
  });

  it('escapes names', () => {
    const odd = withNames(A, () => ({ 'a|<b>': { p99Ms: 10 } }));
    const md = renderCompare(
      odd,
      withNames(B, () => ({ 'a|<b>': { p99Ms: 30 } })),
    );
    expect(md).toContain('- a\\|&lt;b>: p99 regressed');
    expect(md).toContain('| a\\|&lt;b> |');
  });
});

const SLO: SloConfig = { quantile: 0.99, maxMs: 300, source: 'client' };

/** Steps 100..500 holding up to `kneePerSec`, p99 about 38 ms up to `withinPerSec` and 382 ms above (30 s windows). */
function sloRun(kneePerSec: number, withinPerSec: number, slo: SloConfig | null = SLO): RunResult {
  const steps: FakeStep[] = [100, 200, 300, 400, 500].map((r) => ({
    ratePerSec: r,
    okPerSec: r <= kneePerSec ? r : kneePerSec + 5,
    latencyMs: r <= withinPerSec ? 10 : 100,
  }));
  return analyzeRun({ ...buildInput({ steps, holdS: 32, rampS: 1, settleS: 2 }), ...(slo ? { slo } : {}) });
}

describe('plateau compare with a latency objective', () => {
  const a = sloRun(400, 300),
    b = sloRun(400, 400);
  const doc = (x: RunResult, y: RunResult) =>
    compareDocument({ a: x, b: y, rows: compareRows(x, y), warnings: [], cost: null });

  it('both capacities of both runs, the change within the same objective', () => {
    const md = renderCompare(a, b);
    expect(md).toContain('| Capacity | 400.0 req/s | 400.0 req/s | +0.00% |');
    expect(md).toContain(
      '| Capacity within SLO (p99 <= 300 ms, client minus RTT) | 300.0 req/s (step 3) | at least 400.0 req/s (step 4; no holding step missed it: the plateau came first) | +33.33% |',
    );
    expect(doc(a, b)).toMatchObject({
      a: { slo: { objective: 'p99 <= 300 ms, client minus RTT', capacityPerSec: 300, step: 3, atLeast: false } },
      b: { slo: { capacityPerSec: 400, step: 4, atLeast: true } },
    });
    expect(doc(a, b).change.sloCapacity).toBeCloseTo(1 / 3, 9);
  });

  it('one run without an objective, or other objectives: shown, not compared', () => {
    expect(renderCompare(a, sloRun(400, 400, null))).toContain(
      '| Capacity within SLO (p99 <= 300 ms, client minus RTT) | 300.0 req/s (step 3) | no objective (slo not set) | – |',
    );
    const other = sloRun(400, 400, { ...SLO, maxMs: 500 });
    expect(renderCompare(a, other)).toContain(
      '| Capacity within SLO (objectives differ) | 300.0 req/s (step 3) at p99 <= 300 ms, client minus RTT | at least 400.0 req/s (step 4; no holding step missed it: the plateau came first) at p99 <= 500 ms, client minus RTT |  |',
    );
    expect(doc(a, other).change.sloCapacity).toBeNull();
    // neither has one: compare renders as before
    expect(renderCompare(A, B)).not.toMatch(/SLO/);
    expect(doc(A, B).a.slo).toBeNull();
  });

  it('the cost per request at the capacity within SLO when cost is set', () => {
    const c = { monthlyCost: 730, currency: 'EUR' };
    const cost = {
      a: costPerRequest(a, c),
      b: costPerRequest(b, c),
      slo: { a: costAtSloCapacity(a, c), b: costAtSloCapacity(b, c) },
    };
    expect(cost.slo.a!.fixedPerRequest).toBeCloseTo(730 / (300 * SECONDS_PER_MONTH), 15);
    expect(cost.a.fixedPerRequest).toBeCloseTo(730 / (400 * SECONDS_PER_MONTH), 15);
    const md = renderCompare(a, b, cost);
    expect(md).toContain(
      `### Cost per request at the capacity within SLO (A)\n\n- fixed price (monthly cost / (capacity × seconds in a month)): ${(730 / (300 * SECONDS_PER_MONTH)).toPrecision(3)} EUR`,
    );
    // b's capacity within SLO is "at least 400" (every holding step met it): its price is a bound, said so
    expect(cost.slo.a!.fixedAtMost).toBeUndefined();
    expect(md).toContain(
      `### Cost per request at the capacity within SLO (B)\n\n- fixed price (monthly cost / (capacity × seconds in a month)): at most ${(730 / (400 * SECONDS_PER_MONTH)).toPrecision(3)} EUR (the capacity within SLO is a lower bound: no holding step missed the objective)`,
    );
    expect(costAtSloCapacity(sloRun(400, 400, { ...SLO, maxMs: 5 }), c)!.notes).toEqual([
      'fixed price: no capacity established',
    ]);
    expect(costAtSloCapacity(A, c)).toBeNull();
  });
});
