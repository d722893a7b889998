/**
 * Every problem at once (issue 26 item 10): cross-field rules run on whatever parsed, zod's own
 * texts never reach the user, and each line names its field, the rule and the fix.
 */
import { describe, expect, it } from 'vitest';
import { PlateauError } from '../errors.ts';
import { distance, nearest } from './nearest.ts';
import { parseConfigOrThrow, validateConfig } from './validate.ts';

const valid = {
  target: { url: 'http://127.0.0.1:8080/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
};
type Obj = Record<string, unknown>;
const withSteps = (steps: Obj, more: Obj = {}): Obj => ({ ...valid, ...more, steps: { ...valid.steps, ...steps } });

/** The printed lines of the refusal, as the CLI shows them. */
function lines(raw: unknown): string[] {
  try {
    parseConfigOrThrow(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).code).toBe('config-invalid');
    return (err as PlateauError).message.split('\n').filter((l) => l.startsWith('  - '));
  }
  throw new Error('the config was accepted');
}

describe('five mistakes, five lines: each names its field and a fix', () => {
  const fiveMistakes = withSteps(
    { stepPerSec: -50, startPerSec: 300, maxPerSec: 200, settleS: 12 },
    { rules: { deliveryMin: 1.5 }, warmpu: { enabled: false } },
  );
  const printed = lines(fiveMistakes);

  it('gets exactly five lines', () => {
    expect(printed).toHaveLength(5);
  });

  it.each<[string, RegExp]>([
    [
      'a negative step',
      /^ {2}- steps\.stepPerSec: must be > 0 \(rate added at each step.*\); got -50: set steps\.stepPerSec to a number > 0, e\.g\. 50$/,
    ],
    [
      'a deliveryMin of 1.5',
      /^ {2}- rules\.deliveryMin: must be > 0 and <= 1 \(.*\); got 1\.5: set rules\.deliveryMin to a number > 0 and <= 1, e\.g\. 0\.9$/,
    ],
    [
      'a misspelt key',
      /^ {2}- \(config\): unknown key "warmpu": remove or correct the spelling \(did you mean "warmup"\?\)$/,
    ],
    [
      'maxPerSec below startPerSec',
      /^ {2}- steps\.maxPerSec: 200 is below steps\.startPerSec 300: raise maxPerSec or lower startPerSec$/,
    ],
    [
      'settleS above holdS',
      /^ {2}- steps\.settleS: settle 12 s leaves no steady window in a 10 s hold: make holdS longer than settleS$/,
    ],
  ])('%s', (_name, line) => {
    expect(
      printed.filter((l) => line.test(l)),
      printed.join('\n'),
    ).toHaveLength(1);
  });

  it("no line is one of zod's own texts", () => {
    for (const l of printed) expect(l).not.toMatch(/Too big|Too small|Invalid input|Unrecognized key|expected number/);
  });
});

describe("zod's default texts are replaced by the bound and the fix", () => {
  it.each<[string, Obj, string, RegExp]>([
    [
      'too big',
      { ...valid, rules: { captureMin: 2 } },
      'rules.captureMin',
      /^must be > 0 and <= 1 .*; got 2: a share is written as a fraction: set rules\.captureMin to 0\.02 for 2%, or 0\.2 for 20%$/,
    ],
    [
      'too big, a percentage',
      { ...valid, rules: { deliveryMin: 90 } },
      'rules.deliveryMin',
      /^must be > 0 and <= 1 .*; got 90: a share is written as a fraction \(90% is 0\.9\): set rules\.deliveryMin to 0\.9$/,
    ],
    [
      'too small, inclusive',
      withSteps({ rampS: -1 }),
      'steps.rampS',
      /^must be >= 0 .*; got -1: set steps\.rampS to a number >= 0, e\.g\. 5$/,
    ],
    [
      'not a whole number',
      { ...valid, rtt: { samples: 2.5 } },
      'rtt.samples',
      /^must be a whole number > 0 \(RTT samples\); got 2\.5: set rtt\.samples to a whole number > 0, e\.g\. 20$/,
    ],
    [
      'a number in quotes',
      withSteps({ holdS: '10' }),
      'steps.holdS',
      /^must be a number > 0 .*; got the string "10": write the number without quotes, holdS: 10$/,
    ],
    [
      'NaN computed in a config',
      withSteps({ holdS: Number('abc') }),
      'steps.holdS',
      /got NaN \(not a number: computed in the config/,
    ],
    [
      'a missing required field',
      { ...valid, steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1 } },
      'steps.holdS',
      /^missing \(seconds each rate is held.*\): set steps\.holdS, e\.g\. 30$/,
    ],
    [
      'an enum value',
      { ...valid, engine: 'k7' },
      'engine',
      /^must be one of "native", "k6" .*; got the string "k7": set engine to "k6"$/,
    ],
    [
      'a boolean',
      { ...valid, warmup: { enabled: 'yes' } },
      'warmup.enabled',
      /^must be true or false .*: set warmup\.enabled to true or false, e\.g\. true$/,
    ],
    [
      'an empty string',
      { ...valid, reset: { hooks: [{ kind: 'command', run: '' }] } },
      'reset.hooks.0.run',
      /^must not be empty .*: set reset\.hooks\.0\.run, e\.g\. "\.\/scripts\/reset-db\.sh"$/,
    ],
    [
      'an unknown reset kind',
      { ...valid, reset: { hooks: [{ kind: 'shell' }] } },
      'reset.hooks.0.kind',
      /^must be one of "command", "http", "sql"; got the string "shell"/,
    ],
    [
      'a section that is not an object',
      { ...valid, vus: 5 },
      'vus',
      /^must be a section \{ preAllocated, max, expectedServiceMs, headroom \}/,
    ],
    [
      'a config that is not an object',
      5 as unknown as Obj,
      '(config)',
      /^the config must be an object .*export default defineConfig/,
    ],
    [
      'a misspelt key in a section',
      withSteps({ holdSeconds: 3 }),
      'steps',
      /^unknown key "holdSeconds": remove or correct the spelling \(did you mean "holdS"\?\)$/,
    ],
    [
      'an unknown key with no near one',
      { ...valid, colour: 'blue' },
      '(config)',
      /^unknown key "colour": .*\(the keys are target, scenario, steps,/,
    ],
  ])('%s', (_name, raw, field, message) => {
    const r = validateConfig(raw);
    const p = r.problems.filter((x) => x.field === field);
    expect(p, JSON.stringify(r.problems)).toHaveLength(1);
    expect(p[0]!.message).toMatch(message);
  });

  it('two unknown keys in one section get a line each', () => {
    const fields = validateConfig({ ...valid, stpes: {}, rulez: {} }).problems.map((p) => p.message);
    expect(fields).toEqual([
      'unknown key "stpes": remove or correct the spelling (did you mean "steps"?)',
      'unknown key "rulez": remove or correct the spelling (did you mean "rules"?)',
    ]);
  });
});

describe('cross-field rules run on the fields that parsed', () => {
  it.each<[string, Obj, string, RegExp]>([
    [
      'max below start beside a wrong type',
      withSteps({ startPerSec: 300, holdS: 'x' }),
      'steps.maxPerSec',
      /200 is below steps\.startPerSec 300/,
    ],
    [
      'settle above hold beside an unknown key',
      withSteps({ settleS: 12 }, { colour: 1 }),
      'steps.settleS',
      /settle 12 s leaves no steady window in a 10 s hold/,
    ],
    [
      'VUs upside down beside a bad URL',
      { ...valid, target: { url: 'nope' }, vus: { preAllocated: 10, max: 5 } },
      'vus.max',
      /5 is below vus\.preAllocated 10/,
    ],
    [
      'warmup.minS above warmup.maxS',
      { ...valid, warmup: { minS: 40, maxS: 30 } },
      'warmup.minS',
      /^40 s is above warmup\.maxS 30 s.*raise warmup\.maxS to at least 40$/,
    ],
    [
      'warmup windows longer than maxS',
      { ...valid, warmup: { windowS: 5, stableWindows: 3, maxS: 10 } },
      'warmup.maxS',
      /cannot hold 3 stable windows of 5 s \(15 s\).*raise warmup\.maxS to at least 15/,
    ],
    [
      'a topology probe that reads nothing',
      { ...valid, topology: { everyS: 2 } },
      'topology',
      /give topology\.metric .* or topology\.command/,
    ],
    [
      'a server SLO with no metrics to read it from',
      { ...valid, slo: { maxMs: 300, source: 'server' } },
      'slo.source',
      /no metrics section: add metrics .* or use source: 'client'/,
    ],
    [
      'a server SLO on a bare request counter',
      { ...valid, slo: { maxMs: 300, source: 'server' }, metrics: { url: '/metrics', requests: { preset: 'nginx' } } },
      'slo.source',
      /nginx preset is a bare request counter: use a preset with a histogram/,
    ],
    [
      'a limit beside a bad field it does not read',
      withSteps({ maxPerSec: 200_000, stepPerSec: 100_000 }, { target: { url: 'nope' } }),
      'steps.maxPerSec',
      /^200000 arrivals\/s exceeds limits\.maxRatePerSec 100000/,
    ],
  ])('%s', (_name, raw, field, message) => {
    const r = validateConfig(raw);
    expect(
      r.problems.filter((x) => x.field === field && message.test(x.message)),
      JSON.stringify(r.problems),
    ).toHaveLength(1);
  });

  it.each<[string, Obj]>([
    ['an invalid settleS is not replaced by the default settle', withSteps({ holdS: 1, settleS: -1 })],
    ['an invalid metrics.url does not also say "give metrics.url"', { ...valid, metrics: { url: '' } }],
  ])('a rule reading a failed field stays silent: %s', (_name, raw) => {
    expect(validateConfig(raw).problems).toHaveLength(1);
  });

  it.each<[string, Obj]>([
    ['warmup windows exactly filling maxS', { ...valid, warmup: { windowS: 1, stableWindows: 2, maxS: 2 } }],
    [
      'warmup windows longer than maxS under k6 (no warmup of its own)',
      { ...valid, engine: 'k6', warmup: { windowS: 5, stableWindows: 3, maxS: 10 } },
    ],
    ['warmup disabled', { ...valid, warmup: { enabled: false, windowS: 5, stableWindows: 3, maxS: 10 } }],
    ['minS equal to maxS', { ...valid, warmup: { minS: 30, maxS: 30 } }],
    ['a topology metric', { ...valid, topology: { metric: 'kube_deployment_status_replicas' } }],
    [
      'a server SLO with a histogram preset',
      { ...valid, slo: { maxMs: 300, source: 'server' }, metrics: { url: '/metrics', requests: { preset: 'otel' } } },
    ],
  ])('still valid: %s', (_name, raw) => {
    expect(validateConfig(raw).problems).toEqual([]);
  });
});

describe('nearest valid key', () => {
  it.each<[string, string[], string | undefined]>([
    ['stpes', ['target', 'steps', 'rules'], 'steps'],
    ['holdSeconds', ['rampS', 'holdS', 'settleS'], 'holdS'],
    ['maxpersec', ['startPerSec', 'maxPerSec'], 'maxPerSec'],
    ['colour', ['target', 'steps', 'rules'], undefined],
    ['x', ['vus', 'http'], undefined],
  ])('%s among %j is %s', (given, keys, expected) => {
    expect(nearest(given, keys)).toBe(expected);
  });

  it.each<[string, string, number]>([
    ['steps', 'stpes', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('distance(%s, %s) = %d', (a, b, d) => {
    expect(distance(a, b)).toBe(d);
  });
});
