/**
 * Every problem at once (issue 26 item 10): cross-field rules run on whatever parsed, zod's own
 * texts never reach the user, and each line names its field, the rule and the fix.
 */
import { describe, expect, it } from 'vitest';
import { PlateauError } from '../errors.ts';
import { distance, nearest } from './nearest.ts';
import { parseConfigOrThrow, validateConfig } from './validate.ts';
import { Given } from './given.ts';

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
      /^missing \(seconds each rate is held.*\): set steps\.holdS \(or --hold\), e\.g\. 30$/,
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
      'a path without its leading slash (preflight resolved it, the RTT stage failed on it as a bug)',
      { ...valid, target: { url: 'http://127.0.0.1:8080/api/', rttPath: 'ping' } },
      'target.rttPath',
      /^must be a path on the target's origin, starting with '\/': got "ping", write "\/ping"$/,
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

// a review: `run --demo --max-rate 20` read "steps.maxPerSec: 20 is below steps.startPerSec 50 ...
// fix the fields named above in plateau.config.ts", fields the user never wrote
describe("a value a flag set is said in the flag's words; the file's keep the field's", () => {
  /** The refusal of `raw` whose fields `flags` (overrides, as cli/options.ts keys them) were typed: its lines and its fix. */
  function refusal(raw: unknown, flags: Obj): { lines: string[]; fix: string } {
    try {
      parseConfigOrThrow(raw, { given: Given.of(flags), file: 'shop.config.ts' });
    } catch (err) {
      const e = err as PlateauError;
      return { lines: e.message.split('\n').filter((l) => l.startsWith('  - ')), fix: e.hint };
    }
    throw new Error('the config was accepted');
  }

  it.each<[string, Obj, Obj, string]>([
    [
      "--max-rate below the file's first step",
      withSteps({ startPerSec: 50, maxPerSec: 20 }),
      { maxRate: 20 },
      '  - --max-rate 20 is below the first step, 50 (steps.startPerSec; give --start-rate too)',
    ],
    [
      "--start-rate above the file's last step",
      withSteps({ startPerSec: 300 }),
      { startRate: 300 },
      '  - --start-rate 300 is above the last step, 200 (steps.maxPerSec; give --max-rate too)',
    ],
    [
      'both rates typed',
      withSteps({ startPerSec: 100, maxPerSec: 50 }),
      { startRate: 100, maxRate: 50 },
      '  - --max-rate 50 is below --start-rate 100: raise --max-rate or lower --start-rate',
    ],
    [
      "--hold not past the file's settle",
      withSteps({ holdS: 2, settleS: 5 }),
      { hold: 2 },
      '  - --hold 2 leaves no steady window after the settle of 5 s (steps.settleS; give --settle too, below 2, or a --hold above 5)',
    ],
    [
      "--settle as long as the file's hold",
      withSteps({ settleS: 10 }),
      { settle: 10 },
      '  - --settle 10 leaves no steady window in a 10 s hold (steps.holdS): give --settle below 10, or a --hold above 10 as well',
    ],
    [
      '--hold in fractions',
      withSteps({ holdS: 2.5 }),
      { hold: 2.5 },
      '  - --hold 2.5 is not whole seconds (windows are judged on one-second buckets): give e.g. --hold 3',
    ],
    [
      '--hold 0',
      withSteps({ holdS: 0 }),
      { hold: 0 },
      '  - --hold 0: must be > 0 (seconds each rate is held, in whole seconds): give --hold a number > 0, e.g. --hold 30',
    ],
    [
      '--max-rate over the safety cap',
      withSteps({ maxPerSec: 200_000, stepPerSec: 100_000 }),
      { maxRate: 200_000, stepRate: 100_000 },
      '  - --max-rate 200000 arrivals/s exceeds limits.maxRatePerSec 100000: lower --max-rate, or raise limits.maxRatePerSec if the target can take it',
    ],
    [
      '--max-vus below --vus',
      { ...valid, vus: { preAllocated: 10, max: 5 } },
      { vus: 10, maxVus: 5 },
      '  - --max-vus 5 is below --vus 10: raise --max-vus',
    ],
  ])('%s', (_what, raw, flags, line) => {
    const r = refusal(raw, flags);
    expect(r.lines).toEqual([line]);
    expect(r.fix).toBe('fix the flags named above (--help lists them)');
  });

  it('a rule that does not speak of flags names the flag beside the field; the fix names both places when both have problems', () => {
    const r = refusal(withSteps({ startPerSec: 300 }, { target: { url: 'ftp://shop/' } }), { target: 'ftp://shop/' });
    expect(r.lines).toEqual([
      '  - steps.maxPerSec: 200 is below steps.startPerSec 300: raise maxPerSec or lower startPerSec',
      '  - --target (target.url): protocol ftp: is not supported: use http:// or https://',
    ]);
    expect(r.fix).toBe('fix the flags named above, and the fields in shop.config.ts');
  });

  it('no flag typed: the fields and the file, as before', () => {
    const r = refusal(withSteps({ startPerSec: 300 }), {});
    expect(r.lines).toEqual([
      '  - steps.maxPerSec: 200 is below steps.startPerSec 300: raise maxPerSec or lower startPerSec',
    ]);
    expect(r.fix).toBe('fix the fields named above in shop.config.ts or the matching CLI flags (--help)');
  });
});
