import { describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { applyOverrides } from '../config/load.ts';
import { parseConfigOrThrow } from '../config/validate.ts';
import { COMMANDS, CONFIG_FLAGS, FLAGS, flagsOf, type Command, type Flag } from './flags.ts';
import { overridesOf, withFlags } from './options.ts';
import { program, usageFix } from './program.ts';
import { processIo } from './io.ts';
import { cliInProcess } from '../../test/helpers/cli.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A config every override below keeps valid. */
const BASE = {
  target: { url: 'http://127.0.0.1:9/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
};

/** What to type for each flag that sets a config field, and the value the field must then hold. */
const SAMPLES: Record<string, { argv: string[]; value: unknown; base?: Record<string, unknown> }> = {
  target: { argv: ['--target', 'http://127.0.0.1:7/other'], value: 'http://127.0.0.1:7/other' },
  scenario: { argv: ['--scenario', './s.ts'], value: './s.ts' },
  'start-rate': { argv: ['--start-rate', '75'], value: 75 },
  'step-rate': { argv: ['--step-rate', '25'], value: 25 },
  'max-rate': { argv: ['--max-rate', '300'], value: 300 },
  hold: { argv: ['--hold', '12'], value: 12 },
  ramp: { argv: ['--ramp', '3'], value: 3 },
  settle: { argv: ['--settle', '4'], value: 4 },
  vus: { argv: ['--vus', '7'], value: 7 },
  'max-vus': { argv: ['--max-vus', '70'], value: 70 },
  'timeout-ms': { argv: ['--timeout-ms', '1500'], value: 1500 },
  'http-client': { argv: ['--http-client', 'undici'], value: 'undici' },
  'run-id': { argv: ['--run-id', 'r-1'], value: 'r-1' },
  out: { argv: ['--out', 'elsewhere'], value: 'elsewhere' },
  warmup: { argv: ['--no-warmup'], value: false },
  workers: { argv: ['--workers', '3'], value: 3 },
  engine: { argv: ['--engine', 'k6'], value: 'k6' },
  'execution-segment': { argv: ['--execution-segment', '0:1/2'], value: '0:1/2', base: { engine: 'k6' } },
  'execution-segment-sequence': {
    argv: ['--execution-segment-sequence', '0,1/2,1'],
    value: '0,1/2,1',
    base: { engine: 'k6', k6: { executionSegment: '0:1/2' } },
  },
  'k6-out': { argv: ['--k6-out', 'csv'], value: 'csv' },
};

function parse(command: Command, argv: string[]): Record<string, unknown> {
  return withFlags(yargs(argv), command).strict().exitProcess(false).parseSync() as Record<string, unknown>;
}

function at(o: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], o);
}

async function helpOf(command: Command): Promise<string> {
  return new Promise((resolve, reject) => {
    program([], () => undefined, processIo)
      .exitProcess(false)
      .parse([command, '--help'], {}, (err, _argv, output) => (err ? reject(err) : resolve(output)));
  });
}

describe('every flag that names a config field reaches that field', () => {
  const cases = CONFIG_FLAGS.flatMap((f) =>
    f.commands
      .filter((c) => c === 'run' || c === 'plan' || c === 'k6-script')
      .map((c) => [c, f.name, f.config.path] as const),
  );

  it('every such flag has a sample here (a new flag gets one)', () => {
    expect(CONFIG_FLAGS.map((f) => f.name).filter((n) => !(n in SAMPLES))).toEqual([]);
  });

  it.each(cases)('%s --%s sets %s of the validated config', (command, name, field) => {
    const s = SAMPLES[name]!;
    const file = { ...BASE, ...s.base };
    const raw = applyOverrides(file, overridesOf(parse(command, s.argv), command));
    // that field and no other, in the file as given, and the schema knows the field and keeps the value
    expect(raw).toEqual(withField(file, field, s.value));
    expect(at(parseConfigOrThrow(raw), field)).toEqual(s.value);
  });

  it("a flag not given leaves the file's field alone", () => {
    expect(applyOverrides(BASE, overridesOf(parse('run', [])))).toEqual(BASE);
  });

  it('import cuts steps with the same step flags, onto the same fields', () => {
    const a = parse('import', [
      '--start-rate',
      '10',
      '--step-rate',
      '5',
      '--max-rate',
      '30',
      '--ramp',
      '1',
      '--hold',
      '8',
      '--scenario',
      'a',
      '--scenario',
      'b',
    ]);
    expect(applyOverrides({}, overridesOf(a, 'import')).steps).toEqual({
      startPerSec: 10,
      stepPerSec: 5,
      maxPerSec: 30,
      rampS: 1,
      holdS: 8,
    });
    expect(a.scenario).toEqual(['a', 'b']);
  });

  it('a load flag given twice is refused, naming it', () => {
    expect(() => overridesOf(parse('run', ['--hold', '1', '--hold', '2']))).toThrow(
      /--hold was given 2 times \(1, 2\)/,
    );
  });
});

/** A copy of `o` with the dotted `field` set to `value` (the sections on its way made as needed). */
function withField(o: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = field.split('.');
  if (rest.length === 0) return { ...o, [head!]: value };
  return { ...o, [head!]: withField((o[head!] as Record<string, unknown> | undefined) ?? {}, rest.join('.'), value) };
}

describe("each command's help lists exactly its flags from the table", () => {
  it.each(COMMANDS)('plateau %s --help', async (command) => {
    const help = await helpOf(command);
    const listed = [...help.matchAll(/^ {2}--([\w-]+)/gm)]
      .map((m) => m[1])
      .filter((n) => n !== 'version' && n !== 'help');
    const shown = flagsOf(command).filter((f) => !f.option.hidden);
    expect(listed).toEqual(shown.map((f) => f.name));
    for (const f of shown) expect(help.replace(/\s+/g, ' ')).toContain(String(f.option.describe).replace(/\s+/g, ' '));
  });

  it('k6-script does not list the demo, which it refuses (a script for it would point at nothing)', async () => {
    expect(await helpOf('k6-script')).not.toMatch(/--demo/);
    expect(await helpOf('run')).toMatch(/^ {2}--demo /m);
  });

  it("k6-script does not list the native engine's flags, which it refuses", async () => {
    const help = await helpOf('k6-script');
    for (const f of ['http-client', 'workers', 'warmup', 'engine']) {
      expect(help).not.toMatch(new RegExp(`--${f}\\b`));
      expect(await helpOf('run')).toMatch(new RegExp(`^ {2}--${f} `, 'm'));
    }
  });

  it('no command takes one name twice, and every listBefore names a flag of its command', () => {
    for (const c of COMMANDS) {
      const names = flagsOf(c).map((f) => f.name);
      expect(new Set(names).size, c).toBe(names.length);
    }
    expect(FLAGS.length).toBeGreaterThan(0);
  });

  it('plan, compare and gate take --json; no other command does', () => {
    expect(COMMANDS.filter((c) => flagsOf(c).some((f) => f.name === 'json'))).toEqual(['plan', 'compare', 'gate']);
  });
});

describe('an unknown argument points at the help of the command typed', () => {
  it.each([
    [
      ['import', 'k6', 'out.json', '--json'],
      'Unknown argument: json',
      '--json is a flag of plateau plan, compare, gate, not of plateau import k6: see plateau import k6 --help',
    ],
    [['k8s', 'manifest', '--bogus'], 'Unknown argument: bogus', 'see plateau k8s manifest --help'],
    [
      ['plan', '--max-rte', '5'],
      'Unknown arguments: max-rte, maxRte',
      'did you mean --max-rate (not --max-rte)? (plateau plan --help lists them)',
    ],
    [['plna'], 'Unknown argument: plna', 'did you mean the command plan (not plna)? (plateau --help lists them)'],
  ])('plateau %j', (argv, msg, fix) => {
    // it was "see plateau --help" for all, which lists the commands, not a command's flags
    expect(usageFix(msg, argv)).toBe(fix);
  });
});

describe("a misspelt flag's suggestion comes from the typed command's own flags", () => {
  // the suggestion was the nearest flag of any command: `plateau compare ... --tolerence` read
  // "did you mean --tolerance", which compare refuses (it is the gate's)
  it.each([
    [['compare', 'a', 'b', '--tolerence', '5%'], 'tolerence', 'see plateau compare --help'],
    [['report', 'runs/x', '--jsn'], 'jsn', 'see plateau report --help'],
    [['run', '--baselin', 'b.json'], 'baselin', 'see plateau run --help'],
    [['gate', 'runs/x', '--merg', 'y'], 'merg', 'see plateau gate --help'],
    [['import', 'k6', 'out.json', '--max-vu', '5'], 'max-vu', 'see plateau import k6 --help'],
    [['k6-script', '--parallelsim', '3'], 'parallelsim', 'see plateau k6-script --help'],
    [['plan', '--forse'], 'forse', 'see plateau plan --help'],
  ])("plateau %j: no other command's flag", (argv, typo, fix) => {
    expect(usageFix(`Unknown argument: ${typo}`, argv)).toBe(fix);
  });

  it.each([
    [['gate', 'runs/x', '--tolerence', '5%'], 'tolerence', 'tolerance', 'plateau gate'],
    [['gate', 'runs/x', '--jsn'], 'jsn', 'json', 'plateau gate'],
    [['report', 'runs/x', '--mege', 'y'], 'mege', 'merge', 'plateau report'],
    [['import', 'k6', 'out.json', '--max-rte', '5'], 'max-rte', 'max-rate', 'plateau import k6'],
    [['k8s', 'run', '--parallelsim', '3'], 'parallelsim', 'parallelism', 'plateau k8s run'],
    [['baseline', 'save', 'runs/x', '--forse'], 'forse', 'force', 'plateau baseline'],
    [['run', '--max-vu', '5'], 'max-vu', 'max-vus', 'plateau run'],
  ])('plateau %j: its own flag', (argv, typo, flag, command) => {
    expect(usageFix(`Unknown argument: ${typo}`, argv)).toBe(
      `did you mean --${flag} (not --${typo})? (${command} --help lists them)`,
    );
  });

  it("another command's flag, spelt right, is said to be that command's", () => {
    expect(usageFix('Unknown arguments: max-rate, maxRate', ['report', 'runs/x', '--max-rate', '5'])).toBe(
      '--max-rate is a flag of plateau run, plan, k6-script, import, k8s run, k8s manifest, not of plateau report: see plateau report --help',
    );
    expect(usageFix('Unknown arguments: max-rate, mege, maxRate', ['report', 'x', '--max-rate', '5', '--mege'])).toBe(
      'did you mean --merge (not --mege)? --max-rate is a flag of plateau run, plan, k6-script, import, k8s run, k8s manifest, not of plateau report: see plateau report --help',
    );
  });
});

describe('a number flag given text is named with what was typed, for every command', () => {
  // yargs parses text as NaN and a bare flag as nothing: `import k6 out.json --max-rate abc` said
  // "--max-rate given without --start-rate", the config's check "got NaN (a flag such as --hold abc?)"
  it.each([
    [['run', '--target', 'http://127.0.0.1:9/', '--max-rate', 'abc'], '--max-rate abc is not a number'],
    [['k6-script', '--vus', 'ten'], '--vus ten is not a number'],
    [['import', 'k6', 'out.json', '--max-rate', 'abc'], '--max-rate abc is not a number'],
    [['import', 'k6', 'out.json', '--start-rate', '10', '--max-rate'], '--max-rate (no value) is not a number'],
    // yargs reads the camelCase spelling too: named with what was typed (it read "(no value)")
    [['plan', '--maxRate', 'abc'], '--max-rate abc is not a number'],
    [['plan', '--maxRate=abc'], '--max-rate abc is not a number'],
    [['gate', 'runs/x', '--baseline', 'b.json', '--unit-price', '0,5'], '--unit-price 0,5 is not a number'],
    [['k8s', 'manifest', '--parallelism', 'x', '--prometheus', 'http://p'], '--parallelism x is not a number'],
    [['plan', '--max-rate', 'abc', '--hold', 'a b'], '2 flags are not numbers: --max-rate abc, --hold "a b"'],
  ])('plateau %j', async (argv, message) => {
    const r = await cliInProcess(argv);
    expect(r.stderr).toMatch(
      new RegExp(
        `^plateau: ${escape(message)}\\n  fix: give --[a-z-]+( and --[a-z-]+)? a number, e\\.g\\. --[a-z-]+ 50 `,
      ),
    );
    expect(r.status).toBe(2);
  });

  // a review: `--hold 30s`, as k6 writes durations, read "is not a number ... e.g. --hold 50 (digits,
  // a decimal point allowed)": neither the unit nor that a hold is whole seconds
  it.each([
    [
      ['plan', '--hold', '30s'],
      '--hold 30s: --hold takes whole seconds, without a unit',
      'give seconds without a unit, e.g. --hold 30',
    ],
    [
      ['plan', '--hold=1m30s'],
      '--hold 1m30s: --hold takes whole seconds, without a unit',
      'give seconds without a unit, e.g. --hold 90',
    ],
    [
      ['run', '--ramp', '500ms'],
      '--ramp 500ms: --ramp takes whole seconds, without a unit',
      'give seconds without a unit, e.g. --ramp 1',
    ],
    [
      ['k6-script', '--settle', '2.5s'],
      '--settle 2.5s: --settle takes whole seconds, without a unit',
      'give seconds without a unit, e.g. --settle 3',
    ],
    [
      ['import', 'k6', 'out.json', '--hold', '10s'],
      '--hold 10s: --hold takes whole seconds, without a unit',
      'give seconds without a unit, e.g. --hold 10',
    ],
    [
      ['plan', '--timeout-ms', '5s'],
      '--timeout-ms 5s: --timeout-ms takes milliseconds, without a unit',
      'give milliseconds without a unit, e.g. --timeout-ms 5000',
    ],
    [
      ['run', '--demo', '--demo-hold-ms', '10ms'],
      '--demo-hold-ms 10ms: --demo-hold-ms takes milliseconds, without a unit',
      'give milliseconds without a unit, e.g. --demo-hold-ms 10',
    ],
    [
      ['plan', '--hold', 'abc'],
      '--hold abc is not a number',
      'give --hold a number of whole seconds, without a unit, e.g. --hold 10',
    ],
    [
      ['plan', '--max-rate', 'abc', '--hold', '30s'],
      '2 flags are not numbers: --max-rate abc, --hold 30s',
      'give --max-rate a number, e.g. --max-rate 50 (digits, a decimal point allowed); give seconds without a unit, e.g. --hold 30',
    ],
  ])('a duration flag given a unit: plateau %j', async (argv, message, fix) => {
    const r = await cliInProcess(argv);
    expect(r.stderr).toBe(`plateau: ${message}\n  fix: ${fix}\n`);
    expect(r.status).toBe(2);
  });

  // a number flag added for a time is told its unit too
  it('every number flag whose value is a time is a duration flag, with its unit', () => {
    const timed = (FLAGS as readonly Flag[]).filter(
      (f) => f.option.type === 'number' && /seconds|\bms\b|timeout/i.test(`${f.name} ${String(f.option.describe)}`),
    );
    expect(timed.map((f) => [f.name, f.unit])).toEqual([
      ['demo-hold-ms', 'ms'],
      ['hold', 's'],
      ['ramp', 's'],
      ['settle', 's'],
      ['timeout-ms', 'ms'],
    ]);
  });
});
