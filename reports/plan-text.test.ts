import { describe, expect, it } from 'vitest';
import { planText, type PlanTextInput } from './plan-text.ts';
import { buildPlan } from '../analysis/plan.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';

const input = (over: Partial<PlanTextInput> = {}): PlanTextInput => ({
  plan: {
    target: 'http://10.0.0.5:8080/orders',
    steps: [{ index: 0, ratePerSec: 100, rampStartS: 0, holdStartS: 2, holdEndS: 62, steadyStartS: 8, steadyEndS: 62 }],
    durationS: 62,
    settleS: 6,
    rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 },
    vus: { preAllocatedVUs: 10, maxVUs: 40, reason: 'sized' },
    expectedSteadySamples: [5400],
  },
  steps: { startPerSec: 100, stepPerSec: 50, maxPerSec: 100, rampS: 2, holdS: 60 },
  warmup: { enabled: true, ratePerSec: 50, stableWindows: 3, windowS: 2, tolerance: 0.1, maxS: 30 },
  reset: [],
  // a probe read before the run, or a hook given in `over`: the reset stage runs
  resetRuns: true,
  threads: {
    sizes: false,
    why: 'the target is not on this machine, so the generator takes no CPU from it: all 4 threads run the steps',
  },
  engineLines: [],
  ...over,
});

describe('plan text (pure: what the shell gathered in, text out)', () => {
  it('words every reset hook, the engine lines in place and the total time', () => {
    const text = planText(
      input({
        reset: [
          { kind: 'command', run: './r.sh' },
          { kind: 'http', method: 'POST', url: '/reset' },
          { kind: 'sql', database: 'stage.db', statements: 2, tables: ['a', 'b'] },
        ],
        engineLines: ['segment  k6 execution segment 0:1/2'],
        scenario: 'orders (./scenario.ts)',
      }),
    );
    expect(text).toContain('reset    command `./r.sh`; POST /reset; sql on stage.db (2 statements, tables a, b)');
    expect(text).toContain('scenario orders (./scenario.ts)');
    expect(text).toMatch(/rule .*\nsegment  k6 execution segment 0:1\/2\nVUs      10 preallocated, max 40 \(sized;/);
    expect(text).toContain(
      '   1     100        0 s  8-62 s                      5400  p50 p90 p99 (p99.9 needs 30000)',
    );
    // the most load a run makes, as the arrivals a data source must cover: a rerun of each step counted
    expect(text).toContain(
      'at most 2 min 35 s of load (1 min 2 s of steps, as much again if each step is rerun once, + warmup up to 31 s, its 1 s ramp included)',
    );
    expect(text).toMatch(/^stages {3}preflight -> reset -> rtt -> warmup -> 1 step -> report$/m);
  });

  // a review: with every step rerun the plan's "at most" could pass limits.maxDurationS, which cuts the run
  it.each([
    [
      'under limits.maxDurationS',
      3600,
      'at most 2 min 35 s of load (1 min 2 s of steps, as much again if each step is rerun once, + warmup up to 31 s, its 1 s ramp included); the run',
    ],
    [
      'past it',
      120,
      'at most 2 min 0 s of load (1 min 2 s of steps, as much again if each step is rerun once, + warmup up to 31 s, its 1 s ramp included; limits.maxDurationS stops a run at 2 min 0 s of load, so one that reruns many of its steps is cut there (raise limits.maxDurationS to let every rerun run)); the run',
    ],
  ])('counts the load at most limits.maxDurationS: %s', (_, maxDurationS, line) => {
    expect(planText(input({ maxDurationS }))).toContain(line);
  });

  it('says when the warmup is disabled and leaves its time out', () => {
    const text = planText(
      input({ warmup: { enabled: false, ratePerSec: 50, stableWindows: 3, windowS: 2, tolerance: 0.1, maxS: 30 } }),
    );
    expect(text).toContain('warmup   disabled');
    expect(text).toContain('at most 2 min 4 s of load (1 min 2 s of steps, as much again if each step is rerun once)');
    // the stages the run goes through: no warmup
    expect(text).toMatch(/^stages {3}preflight -> reset -> rtt -> 1 step -> report$/m);
    expect(text).toContain('scenario GET http://10.0.0.5:8080/orders (no scenario module)');
  });

  // a review: the stages line had no threads, which run goes through between the warmup and the steps
  it('lists the threads stage where it sizes the threads, and says what it does either way', () => {
    const sized = planText(input({ threads: { sizes: true, of: 4 } }));
    expect(sized).toMatch(/^stages {3}preflight -> reset -> rtt -> warmup -> threads -> 1 step -> report$/m);
    expect(sized).toContain(
      'threads  after the warmup, the steps keep as few of the 4 engine threads as its measured cost per arrival says 100 req/s needs, the rest left to the target on this machine (all 4 run if the warmup does not settle); no load, well under a second',
    );
    expect(sized).toMatch(/^warmup .*\nthreads .*\nsteps /m);
    const kept = planText(input());
    expect(kept).toMatch(/^stages {3}preflight -> reset -> rtt -> warmup -> 1 step -> report$/m);
    expect(kept).toContain(
      'threads  not sized: the target is not on this machine, so the generator takes no CPU from it: all 4 threads run the steps',
    );
  });

  it('leaves out a reset stage with nothing to do, as the run skips it', () => {
    expect(planText(input({ resetRuns: false }))).toMatch(
      /^stages {3}preflight -> rtt -> warmup -> 1 step -> report$/m,
    );
  });
});

describe('plan text: the VUs line', () => {
  it('says the warmup may raise the VUs wherever it will, one request per arrival included', () => {
    const raised = 'raised after the warmup where its measured time per arrival is longer';
    expect(planText(input({ vusFromWarmup: true }))).toContain(
      `VUs      10 preallocated, max 40 (sized; provisional: re-sized with the measured RTT before load, and ${raised})`,
    );
    expect(planText(input({ vusFromWarmup: false }))).not.toContain(raised);
    expect(planText(input())).not.toContain(raised);
    // the round trip alone replaces nothing of the figure's sense: not provisional
    expect(planText(input())).toContain(
      'VUs      10 preallocated, max 40 (sized; re-sized with the measured RTT before load)\n',
    );
  });

  it('says which count the RTT and the warmup re-size where the config gives one, and none where it gives both', () => {
    expect(planText(input({ vusFromWarmup: true, vusGiven: 'max' }))).toContain(
      '(sized; provisional: the preallocated re-sized with the measured RTT before load, and raised after the warmup where its measured time per arrival is longer, at most to the given max)',
    );
    expect(planText(input({ vusFromWarmup: true, vusGiven: 'preAllocated' }))).toContain(
      '(sized; provisional: the max re-sized with the measured RTT before load, and raised after the warmup where its measured time per arrival is longer)',
    );
    expect(planText(input({ vusFromWarmup: false, vusGiven: 'both' }))).toContain(
      'VUs      10 preallocated, max 40 (sized)\n',
    );
    expect(planText(input({ vusFromWarmup: false, vusGiven: 'both', transactions: ['browse'] }))).toContain(
      'VUs      10 preallocated, max 40 (sized)\n',
    );
  });

  // a review: plan said 20 VUs (50 ms requests) for a mix whose transaction thinks 1 s; the run,
  // sized from the transaction's sample arrival, 226, and plan had said only the RTT would re-size them
  it("says a mix's transactions make the figure provisional, and which measurement replaces it", () => {
    const sampled =
      "re-sized before load with the measured RTT and, where longer, the time per arrival of preflight's sample arrivals, each transaction's own";
    expect(planText(input({ transactions: ['browse'] }))).toContain(
      `VUs      10 preallocated, max 40 (sized; provisional: ${sampled} ("browse", think time included, which only sending them measures))\n`,
    );
    expect(planText(input({ transactions: ['checkout', 'early'], vusFromWarmup: true, vusGiven: 'max' }))).toContain(
      `(sized; provisional: the preallocated ${sampled} ("checkout", "early", think time included, which only sending them measures), and raised after the warmup where its measured time per arrival is longer, at most to the given max)\n`,
    );
    // no transaction: the samples size nothing
    expect(planText(input({ transactions: [] }))).not.toContain('sample arrivals');
  });
});

describe('plan text: the tail percentiles by name', () => {
  const steps = [1, 2, 3, 4].map((k) => ({
    index: k - 1,
    ratePerSec: 250 * k,
    rampStartS: 0,
    holdStartS: 0,
    holdEndS: 0,
    steadyStartS: 0,
    steadyEndS: 5,
  }));
  const plan = { ...input().plan, steps, expectedSteadySamples: [1250, 2500, 3750, 5000] };
  const entries = [
    { name: 'read', share: 0.7, transaction: false },
    { name: 'write', share: 0.25, transaction: false },
    { name: 'checkout', share: 0.05, transaction: true },
  ];

  it("says from which step each entry's share of the samples makes its p99, then its p90, trustworthy", () => {
    const text = planText(input({ plan, entries }));
    // read: 0.7 x 5000 = 3500 >= 3000 first at step 4; write: 0.25 x 1250 = 312 >= 300 at step 1;
    // checkout: 0.05 x 5000 = 250 < 300 at every step
    expect(text).toContain(
      [
        "by name: each entry gets its share of a step's expected samples (a transaction's requests as many as it sends)",
        '  p99 (3,000 a window): read (70%) from step 4; write (25%), checkout (5%) at no step of this plan',
        '  p90 (300 a window): read from step 1; write from step 1; checkout at no step of this plan',
        '  longer holds (--hold) collect more; which entry degraded first is judged by p99 where two steps have it, else p90',
      ].join('\n'),
    );
  });

  it('adds nothing for one request per arrival', () => {
    expect(planText(input({ plan }))).not.toContain('by name');
    expect(planText(input({ plan, entries: entries.slice(0, 1) }))).not.toContain('by name');
    expect(planText(input({ plan, entries: entries.slice(0, 1) }))).not.toContain('one request per arrival');
  });

  it("says a transaction's requests add to the expected samples, which count one per arrival", () => {
    expect(entries.some((e) => e.transaction)).toBe(true);
    expect(planText(input({ plan, entries }))).toContain(
      "(expected samples count one request per arrival; a transaction's requests add theirs, so a step's percentiles rest on more)",
    );
  });
});

describe('plan text of a mix with a transaction', () => {
  it('gives the warmup and the VU sizing in arrivals/s, from a plan built for that unit', () => {
    const config = parseConfigOrThrow({
      target: { url: 'http://127.0.0.1:8080/' },
      steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 500, rampS: 2, holdS: 10 },
    });
    for (const [unit, other] of [
      ['arrivals/s', 'req/s'],
      ['req/s', 'arrivals/s'],
    ] as const) {
      const plan = buildPlan(config, null, unit);
      expect(plan.rules.rateUnit).toBe(unit);
      const text = planText(input({ plan }));
      expect(text).toContain(`warmup   50 ${unit} until stable`);
      expect(text).toContain(`Little's law: ${config.steps.maxPerSec} ${unit} x (`);
      expect(text).not.toContain(other);
    }
  });
});

describe("plan text of a scenario's data sources", () => {
  it('names each source, its rows and order, and what a unique one must cover', () => {
    const source = { file: 'data/accounts.csv', rows: 1200, usable: 1197, maxArrivals: 1050 };
    const text = planText(
      input({
        data: [
          { name: 'accounts', order: 'unique', ...source },
          { name: 'products', order: 'sequential', ...source, file: 'products.json', usable: 1200 },
          { name: 'coupons', order: 'random', ...source, file: 'coupons.csv', usable: 1200 },
          { name: 'carts', order: 'random', ...source, file: 'carts.json', usable: 1200, seed: 'checkout-ab' },
          { name: 'skus', order: 'random', ...source, file: 'skus.csv', usable: 1200, seed: 42 },
        ],
      }),
    );
    expect(text).toContain(
      "data     accounts (data/accounts.csv): 1,200 rows, unique: 1,197 for the load (3 kept for preflight's sample arrivals) and the plan makes at most 1,050 arrivals (warmup, steps and a rerun of each step)",
    );
    expect(text).toContain(
      "data     products (products.json): 1,200 rows, sequential (each entry's arrivals read them in turn, wrapping)",
    );
    // a review: with fresh run ids two runs compared drew other rows, and nothing said so
    expect(text).toContain(
      'data     coupons (coupons.csv): 1,200 rows, random (seeded by the run id: a run of another id draws other rows; give the source a seed to draw the same in runs you compare)',
    );
    expect(text).toContain(
      'data     carts (carts.json): 1,200 rows, random (seeded by its seed "checkout-ab": every run given it draws the same rows)',
    );
    expect(text).toContain(
      'data     skus (skus.csv): 1,200 rows, random (seeded by its seed 42: every run given it draws the same rows)',
    );
    expect(text.indexOf('data     accounts')).toBeGreaterThan(text.indexOf('scenario '));
    expect(planText(input())).not.toContain('data     ');
    // with no warmup (disabled, or on k6) none of its arrivals are counted, and the text does not name one
    const noWarmup = planText(input({ data: [{ name: 'accounts', order: 'unique', ...source, withWarmup: false }] }));
    expect(noWarmup).toContain('the plan makes at most 1,050 arrivals (steps and a rerun of each step)');
  });
});

describe('plan text: what the run reads of the server, and where the SLO can first be judged', () => {
  const twoSteps = (samples: number[]) => ({
    ...input().plan,
    steps: [100, 200].map((ratePerSec, index) => ({ ...input().plan.steps[0], index, ratePerSec })),
    expectedSteadySamples: samples,
  });
  const metrics = {
    url: '/metrics',
    prometheus: 'http://127.0.0.1:9090',
    preset: 'prometheus-client',
    downstreams: ['redis'],
    pool: true,
  };
  const slo = { quantile: 0.99, maxMs: 50, source: 'client' as const };

  it('names the endpoint, Prometheus, the downstreams and the pool; says nothing without metrics', () => {
    expect(planText(input({ metrics }))).toContain(
      "metrics  /metrics at each steady window's edges and Prometheus http://127.0.0.1:9090 over each steady window (preset prometheus-client); downstreams redis; pool gauges read",
    );
    expect(planText(input())).not.toMatch(/^metrics/m);
  });

  it('the SLO from the first step whose expected samples reach its percentile (p99: 3,000), or at no step', () => {
    expect(planText(input({ plan: twoSteps([2700, 5400]), slo }))).toContain(
      'slo      p99 <= 50 ms, client minus RTT: judged from step 2 (200/s), the first to expect the 3,000 samples its percentile needs in a steady window; below it, not judged',
    );
    expect(planText(input({ plan: twoSteps([1000, 2000]), slo }))).toContain(
      'slo      p99 <= 50 ms, client minus RTT: judged at no step of this plan (none expects the 3,000 samples',
    );
    expect(planText(input())).not.toMatch(/^slo/m);
  });
});

// a review: a transaction with a 20 s think time passed plan, then preflight refused it for the settle
describe('plan text: transactions only preflight measures', () => {
  it('notes it, with the settle preflight holds them to and the fix in its figures', () => {
    const text = planText(input({ transactions: ['checkout'], transactionTimeoutMs: 30_000 }));
    expect(text).toMatch(
      /\nnote: transaction "checkout": plan cannot tell how long it lasts \(only sending it does\); preflight sends a sample arrival of it and refuses the run where it lasts longer than the 6 s each step settles before it is judged, or does not end within 30000 ms \(http\.transactionTimeoutMs\); for one of T s \(think time included\), set steps\.settleS \(or --settle\) to at least 1\.5 x T and steps\.holdS \(or --hold\) to that plus 54, keeping the judged 54 s of each hold, or shorten its think time\n\nat most /,
    );
  });

  it('names each of several, before the warnings; nothing without a transaction', () => {
    const text = planText(input({ transactions: ['a', 'b'], secretsNotSet: ['API_TOKEN'] }));
    expect(text).toMatch(
      /\nnote: transactions "a", "b": plan cannot tell how long they last \(only sending them does\); preflight sends a sample arrival of each and refuses the run where one lasts longer than the 6 s each step settles before it is judged; for one of T s[^\n]*\n\nat most [^\n]*\n\nwarning: API_TOKEN is not set here/,
    );
    expect(planText(input({ transactions: [] }))).not.toContain('plan cannot tell');
  });
});
