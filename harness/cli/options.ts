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
