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
 * all at once; null when none.
 */
export function nonNumberFlags(
  a: Record<string, unknown>,
  command: Command,
  argv: readonly string[],
): PlateauError | null {
  const names = [
    ...new Set(
      flagsOf(command)
        .filter((f) => f.option.type === 'number')
        .map((f) => f.name),
    ),
  ];
  const bad = names.filter((name) => {
    const v = a[name];
    return (typeof v === 'number' && Number.isNaN(v)) || (v === undefined && typedText(name, argv) !== null);
  });
  if (bad.length === 0) return null;
  const shown = bad.map((name) => {
    const text = typedText(name, argv);
    return `--${name} ${text === null || text === '' ? '(no value)' : /^[^\s"]+$/.test(text) ? text : JSON.stringify(text)}`;
  });
  return new PlateauError(
    bad.length === 1 ? `${shown[0]} is not a number` : `${bad.length} flags are not numbers: ${shown.join(', ')}`,
    `give ${bad.map((name) => `--${name}`).join(' and ')} a number, e.g. --${bad[0]} 50 (digits, a decimal point allowed)`,
    'flag-not-a-number',
    EXIT.usage,
  );
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
