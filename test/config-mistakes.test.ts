/**
 * Config mistakes (issue 8), the pure half of test/bad-input.test.ts: each names its field and the
 * fix, every problem at once, a secret never in the message, and any input gives a config plateau
 * can plan or a list of problems, never a throw. No process, thread or socket: unit-beside.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../harness/config/validate.ts';
import { buildPlan } from '../analysis/plan.ts';
import { planText } from '../harness/cli/plan-text.ts';
import { planForInstance } from '../harness/engine/create.ts';

const valid = {
  target: { url: 'http://127.0.0.1:8080/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
};
type Obj = Record<string, unknown>;
const withSteps = (steps: Obj): Obj => ({ ...valid, steps: { ...valid.steps, ...steps } });

describe('config mistakes: each names its field and the fix', () => {
  it.each<[string, Obj, string, RegExp]>([
    [
      'unknown key at the top',
      { ...valid, stpes: {} },
      '(config)',
      /unknown key "stpes": remove or correct the spelling/,
    ],
    ['unknown key in a section', withSteps({ holdSeconds: 3 }), 'steps', /unknown key "holdSeconds"/],
    ['wrong type', withSteps({ holdS: '10' }), 'steps.holdS', /must be a number/],
    ['negative rate', withSteps({ startPerSec: -5 }), 'steps.startPerSec', /must be > 0/],
    ['zero step', withSteps({ stepPerSec: 0 }), 'steps.stepPerSec', /must be > 0/],
    ['zero max', withSteps({ maxPerSec: 0 }), 'steps.maxPerSec', /must be > 0/],
    [
      'max below start',
      withSteps({ startPerSec: 300 }),
      'steps.maxPerSec',
      /200 is below steps.startPerSec 300: raise maxPerSec or lower startPerSec/,
    ],
    [
      'hold not longer than settle',
      withSteps({ holdS: 5, settleS: 5 }),
      'steps.settleS',
      /leaves no steady window in a 5 s hold: make holdS longer than settleS/,
    ],
    ['fractional seconds', withSteps({ holdS: 2.5 }), 'steps', /whole seconds/],
    [
      'target not a URL',
      { ...valid, target: { url: '/orders' } },
      'target.url',
      /must be an absolute http\(s\) URL such as http:\/\/127\.0\.0\.1:8080\/orders/,
    ],
    [
      'target without a scheme',
      { ...valid, target: { url: 'localhost:8080' } },
      'target.url',
      /protocol localhost: is not supported: use http:\/\/ or https:\/\/, e\.g\. http:\/\/localhost:8080$/,
    ],
    [
      'a start rate with no arrival in a steady window',
      withSteps({ startPerSec: 0.001, stepPerSec: 0.001, maxPerSec: 0.003 }),
      'steps.startPerSec',
      /0\.001 arrivals\/s expects no arrival in a 5 s steady window.*raise the rate or lengthen the hold/,
    ],
    [
      'target with a space',
      { ...valid, target: { url: 'http://127.0.0.1:8080/items/1 extra' } },
      'target.url',
      /^"http:\/\/127\.0\.0\.1:8080\/items\/1 extra" holds a space, which a URL cannot: remove it, or encode it as %20 yourself if you meant it \(http:\/\/127\.0\.0\.1:8080\/items\/1%20extra\)$/,
    ],
    [
      'target with a tab at its end',
      { ...valid, target: { url: 'http://127.0.0.1:8080/items\t' } },
      'target.url',
      /^"http:\/\/127\.0\.0\.1:8080\/items\\t" holds a tab, which a URL cannot: remove it \(http:\/\/127\.0\.0\.1:8080\/items\)$/,
    ],
    [
      'target not http',
      { ...valid, target: { url: 'ftp://127.0.0.1/x' } },
      'target.url',
      /protocol ftp: is not supported: use http:\/\/ or https:\/\//,
    ],
    [
      'missing section',
      { target: valid.target },
      'steps',
      /^missing: give the stepped load, --start-rate, --step-rate and --max-rate/,
    ],
    [
      'nothing at all',
      {},
      'target',
      /^missing: give the URL under load, --target http:\/\/host:port\/path .*or --demo/,
    ],
    ['negative timeout', { ...valid, http: { timeoutMs: -1 } }, 'http.timeoutMs', /must be > 0/],
    [
      'VUs upside down',
      { ...valid, vus: { preAllocated: 10, max: 5 } },
      'vus.max',
      /5 is below vus.preAllocated 10: raise vus.max/,
    ],
    ['fractional VUs', { ...valid, vus: { preAllocated: 1.5 } }, 'vus.preAllocated', /whole number/],
    [
      'generator busy bound as a percent',
      { ...valid, verdicts: { generatorBusyMax: 90 } },
      'verdicts.generatorBusyMax',
      /must be > 0 and <= 1, e\.g\. 0\.9/,
    ],
    [
      'run id with a slash',
      { ...valid, output: { runId: '../escape' } },
      'output.runId',
      /letters, digits, dot, dash, underscore/,
    ],
    [
      'target with credentials',
      { ...valid, target: { url: 'https://admin:hunter2pass@shop.example/orders' } },
      'target.url',
      /carries credentials \(user:password@\).*read the secret from the environment \(see README/,
    ],
    [
      'target with a token parameter',
      { ...valid, target: { url: 'https://shop.example/orders?page=2&access_token=at-9f8e7d6c' } },
      'target.url',
      /secret-looking parameter \("access_token"\).*read the secret from the environment \(see README/,
    ],
    [
      'target with an API key parameter',
      { ...valid, target: { url: 'https://shop.example/orders?api_key=ak-1a2b3c4d' } },
      'target.url',
      /secret-looking parameter \("api_key"\)/,
    ],
    [
      'metrics with credentials',
      { ...valid, metrics: { url: 'http://scraper:pw-5e6f7a8b@127.0.0.1:9100/metrics' } },
      'metrics.url',
      /carries credentials.*sends no credentials to a metrics endpoint/,
    ],
    [
      'reset hook with a token parameter',
      { ...valid, reset: { hooks: [{ kind: 'http', url: '/admin/reset?token=rt-0c1d2e3f' }] } },
      'reset.hooks.0.url',
      /secret-looking parameter \("token"\).*`command` hook/,
    ],
  ])('%s', (_name, raw, field, message) => {
    const r = validateConfig(raw);
    expect(r.config).toBeNull();
    const p = r.problems.find((x) => x.field === field);
    expect(p, JSON.stringify(r.problems)).toBeDefined();
    expect(p!.message).toMatch(message);
    // The problem names the part of the URL, never the secret's value.
    for (const secret of ['hunter2pass', 'at-9f8e7d6c', 'ak-1a2b3c4d', 'pw-5e6f7a8b', 'rt-0c1d2e3f'])
      expect(p!.message).not.toContain(secret);
  });

  it('plan says when the top rate is not on the step grid', () => {
    const config = validateConfig(withSteps({ startPerSec: 10, stepPerSec: 15, maxPerSec: 30 })).config!;
    const text = planText(config, buildPlan(config, null));
    expect(text).toMatch(
      /note: the last step is 25 req\/s: maxPerSec 30 is not startPerSec 10 plus a whole number of stepPerSec 15/,
    );
    const onGrid = validateConfig(valid).config!;
    expect(planText(onGrid, buildPlan(onGrid, null))).not.toMatch(/note: the last step/);
  });

  it("plan shows an execution segment's share of every rate and maxVUs rounded to a multiple of the LCD, and refuses bounds too fine", () => {
    const k6 = validateConfig({
      ...valid,
      engine: 'k6',
      k6: { executionSegment: '1/3:2/3', executionSegmentSequence: '0,1/3,2/3,1' },
    }).config!;
    const whole = buildPlan(k6, null);
    const text = planText(k6, planForInstance(whole, k6));
    expect(text).toMatch(/segment {2}k6 execution segment 1\/3:2\/3: this instance runs 33\.3% of every rate below/);
    expect(text).toMatch(
      new RegExp(`maxVUs ${whole.vus.maxVUs} rounded up to ${Math.ceil(whole.vus.maxVUs / 3) * 3}, a multiple of 3`),
    );
    expect(text).toContain(`  1  ${String(Math.round((whole.steps[0]!.ratePerSec / 3) * 1000) / 1000).padStart(6)}  `);
    const fine = validateConfig({ ...valid, engine: 'k6', k6: { executionSegment: '0:0.3333' } }).config!;
    expect(() => planForInstance(buildPlan(fine, null), fine)).toThrow(/splits the arrivals into 10000 parts/);
    const native = validateConfig(valid).config!;
    expect(planText(native, planForInstance(buildPlan(native, null), native))).not.toMatch(/rounded up|segment {2}/);
  });

  it('a URL with ordinary parameters is accepted', () => {
    expect(
      validateConfig({
        ...valid,
        target: { url: 'https://shop.example/orders?page=2&monkey=1&keyboard=us&sort_key=name&cache-key=a1' },
      }).problems,
    ).toEqual([]);
  });

  it('lists every problem at once: three mistakes, three lines', () => {
    const r = validateConfig({
      target: { url: 'nope' },
      steps: { ...valid.steps, startPerSec: -1, holdS: 'x' },
      colour: 'blue',
    });
    expect(r.problems.map((p) => p.field).sort()).toEqual([
      '(config)',
      'steps.holdS',
      'steps.startPerSec',
      'target.url',
    ]);
  });

  it('property: any input gives a config or a non-empty list of problems, each with field and message; never a throw', () => {
    const num = fc.oneof(
      fc.double(),
      fc.integer({ min: -10, max: 100_000 }),
      fc.constantFrom(0, -1, 1, 0.5, 1e-12, 1e12, NaN, Infinity),
      fc.string(),
      fc.constant(null),
    );
    const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const section = (keys: string[]) =>
      fc.oneof(fc.record(Object.fromEntries(keys.map((k) => [k, num])), { requiredKeys: [] }), fc.anything());
    const config = fc.record(
      {
        target: fc.oneof(
          fc.record({ url: fc.oneof(fc.webUrl(), fc.string(), fc.constant('http://127.0.0.1:1/x')) }),
          fc.anything(),
        ),
        steps: section(['startPerSec', 'stepPerSec', 'maxPerSec', 'rampS', 'holdS', 'settleS']),
        vus: opt(section(['preAllocated', 'max', 'expectedServiceMs', 'headroom'])),
        http: opt(section(['timeoutMs'])),
        warmup: opt(section(['ratePerSec', 'windowS', 'maxS'])),
        limits: opt(section(['maxRatePerSec', 'maxDurationS', 'maxInFlight'])),
        [`x${Math.floor(Math.random() * 10)}`]: opt(fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(config, fc.anything()), (raw) => {
        const r = validateConfig(raw);
        if (r.config) {
          expect(r.problems).toEqual([]);
          // A config that validates is one plateau can plan, within its own limits.
          const plan = buildPlan(r.config, null);
          expect(plan.steps.length).toBeGreaterThan(0);
          expect(plan.vus.maxVUs).toBeLessThanOrEqual(r.config.limits.maxInFlight);
          expect(Math.max(...plan.steps.map((s) => s.ratePerSec))).toBeLessThanOrEqual(r.config.limits.maxRatePerSec);
          expect(plan.durationS).toBeLessThanOrEqual(r.config.limits.maxDurationS);
        } else {
          expect(r.problems.length).toBeGreaterThan(0);
          for (const p of r.problems) {
            expect(p.field).toMatch(/\S/);
            expect(p.message).toMatch(/\S/);
          }
        }
      }),
      { numRuns: 800 },
    );
  });
});
