/** A command's flags, from the one flag table (flags.ts), and the config overrides they give. Units are in the flag names. */
import type { Argv } from 'yargs';
import type { Overrides } from '../config/load.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { CONFIG_FLAGS, flagsOf, overrideKey, type Command } from './flags.ts';

/** Adds the command's flags to its yargs builder, in the order its help lists them. */
export function withFlags<T>(y: Argv<T>, command: Command): Argv<T> {
  return flagsOf(command).reduce((acc, f) => acc.option(f.name, f.option) as unknown as Argv<T>, y);
}

/** The flags of `plateau run` (plan and k6-script take the same). */
export function loadOptions<T>(y: Argv<T>): Argv<T> {
  return withFlags(y, 'run');
}

/** The config overrides the parsed flags give: each flag that names a config field, converted for that field. */
export function overridesOf(a: Record<string, unknown>, command: Command = 'run'): Overrides {
  // yargs collects a flag given twice into an array: which value was meant is the user's to say
  const arrayFlags = new Set(
    flagsOf(command)
      .filter((f) => f.option.array)
      .map((f) => f.name),
  );
  const twice = Object.entries(a).filter(
    ([k, v]) => Array.isArray(v) && k !== '_' && !/[A-Z]/.test(k) && !arrayFlags.has(k),
  );
  if (twice.length > 0) {
    const [k, v] = twice[0];
    throw new PlateauError(
      `--${k} was given ${(v as unknown[]).length} times (${(v as unknown[]).map(String).join(', ')})`,
      `give --${k} once`,
      'flag-repeated',
      EXIT.usage,
    );
  }
  const o: Record<string, unknown> = {};
  for (const f of CONFIG_FLAGS) {
    const v = f.commands.includes(command) ? a[f.name] : undefined;
    if (v === undefined) continue;
    o[overrideKey(f.name)] = f.config.from ? f.config.from(v) : f.option.type === 'number' ? Number(v) : v;
  }
  return o as Overrides;
}

/**
 * The number flags of `command` whose text is no number: yargs parses `--max-rate abc` as NaN and
 * a bare `--max-rate` as nothing at all, and goes on, where the import then read it as a flag not
 * given ("--max-rate given without --start-rate"). Each is named with the text typed (from argv),
 * all at once; a duration flag given a duration with a unit (k6's --hold 30s) is told its unit and
 * the number to give; null when none.
 */
export function nonNumberFlags(
  a: Record<string, unknown>,
  command: Command,
  argv: readonly string[],
): PlateauError | null {
  const flags = new Map(
    flagsOf(command)
      .filter((f) => f.option.type === 'number')
      .map((f) => [f.name, f.flag] as const),
  );
  const bad = [...flags.keys()].filter((name) => {
    const v = a[name];
    return (typeof v === 'number' && Number.isNaN(v)) || (v === undefined && typedText(name, argv) !== null);
  });
  if (bad.length === 0) return null;
  const typed = bad.map((name) => ({ name, text: typedText(name, argv), unit: flags.get(name)?.unit }));
  const shown = typed.map(
    ({ name, text }) =>
      `--${name} ${text === null || text === '' ? '(no value)' : /^[^\s"]+$/.test(text) ? text : JSON.stringify(text)}`,
  );
  const durations = typed.map((t) => (t.unit && t.text !== null ? durationFix(t.name, t.unit, t.text) : null));
  if (bad.length === 1 && durations[0]) {
    return new PlateauError(
      `${shown[0]}: --${bad[0]} takes ${UNIT_WORDS[typed[0].unit!]}, without a unit`,
      durations[0],
      'flag-not-a-number',
      EXIT.usage,
    );
  }
  // the others as numbers: a duration flag's, in its unit
  const plain = bad.filter((_, i) => durations[i] === null && !typed[i].unit);
  const unitless = typed.filter((t, i) => durations[i] === null && t.unit);
  const fixes = [
    ...(plain.length
      ? [
          `give ${plain.map((name) => `--${name}`).join(' and ')} a number, e.g. --${plain[0]} 50 (digits, a decimal point allowed)`,
        ]
      : []),
    ...unitless.map(
      (t) =>
        `give --${t.name} a number of ${UNIT_WORDS[t.unit!]}, without a unit, e.g. --${t.name} ${UNIT_EXAMPLE[t.unit!]}`,
    ),
    ...durations.filter((d): d is string => d !== null),
  ];
  return new PlateauError(
    bad.length === 1 ? `${shown[0]} is not a number` : `${bad.length} flags are not numbers: ${shown.join(', ')}`,
    fixes.join('; '),
    'flag-not-a-number',
    EXIT.usage,
  );
}

const UNIT_WORDS = { s: 'whole seconds', ms: 'milliseconds' } as const;
const UNIT_EXAMPLE = { s: 10, ms: 1000 } as const;
/** Milliseconds in each unit of a k6 duration (1h2m3s, 500ms, 1.5s). */
const DURATION_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * The fix of a duration flag given a duration with units, as k6 writes them (30s, 1m30s, 500ms):
 * its number in the flag's unit ('give seconds without a unit, e.g. --hold 30'); null for other text.
 */
export function durationFix(name: string, unit: 's' | 'ms', text: string): string | null {
  const t = text.trim().toLowerCase();
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(t)) return null;
  let ms = 0;
  for (const [, n, , u] of t.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) ms += Number(n) * DURATION_MS[u];
  // a seconds flag takes whole seconds (windows are judged on one-second buckets): 1.5s -> 2, 500ms -> 1
  const value = unit === 's' ? Math.max(Math.round(ms / 1000), ms > 0 ? 1 : 0) : Math.round(ms);
  return `give ${unit === 's' ? 'seconds' : 'milliseconds'} without a unit, e.g. --${name} ${value}`;
}

/**
 * The text typed after the last `--name` (or `--name=text`), in either spelling yargs accepts
 * (--max-rate, --maxRate); "" when no value followed; null when the flag was not typed.
 */
function typedText(name: string, argv: readonly string[]): string | null {
  const spellings = [...new Set([name, overrideKey(name)])];
  let text: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    for (const n of spellings) {
      if (argv[i] === `--${n}`) text = argv[i + 1] === undefined || argv[i + 1].startsWith('--') ? '' : argv[i + 1];
      else if (argv[i].startsWith(`--${n}=`)) text = argv[i].slice(n.length + 3);
    }
  }
  return text;
}
