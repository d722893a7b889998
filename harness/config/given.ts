/**
 * Where a config field's value came from, for the words of its problem: a flag the user typed
 * (`--max-rate 20`), else the config file or a default. A user who typed a flag never wrote the
 * field it sets (steps.maxPerSec), so a problem in it is said in the flag's words, with the flag to
 * change; one in a field of the file keeps the field's.
 */
import { CONFIG_FLAGS, overrideKey } from '../cli/flags.ts';

/** One problem of a config: its field, and what is wrong with the fix. */
export interface Problem {
  field: string;
  message: string;
  /** The flag that set the field ('--max-rate'): the message begins with it (and its value, a number), and the line is the message alone. */
  flag?: string;
}

export class Given {
  /** `flags`: the typed flag ('--max-rate') of each field a flag set ('steps.maxPerSec'). */
  constructor(private readonly flags: ReadonlyMap<string, string> = new Map()) {}

  /** The flags of `typed` (the overrides the user typed, keyed as cli/flags.ts overrideKey): each at its field. */
  static of(typed: Readonly<Record<string, unknown>>): Given {
    const flags = new Map<string, string>();
    for (const f of CONFIG_FLAGS) if (typed[overrideKey(f.name)] !== undefined) flags.set(f.config.path, `--${f.name}`);
    return new Given(flags);
  }

  /** The flag that set `field` ('--max-rate'), or undefined when the file or a default did. */
  flag(field: string): string | undefined {
    return this.flags.get(field);
  }

  /** `field` as the user gave it: its flag, else the field ('steps.startPerSec'). */
  name(field: string): string {
    return this.flag(field) ?? field;
  }

  /**
   * A problem of `field`, whose value is `value`, worded from the value on (`rest`: 'is below ...'):
   * begun with the flag as typed when a flag set it ('--max-rate 20 is below ...'), else the field
   * labels the line as every problem's does ('steps.maxPerSec: 20 is below ...').
   */
  problem(field: string, value: number, rest: string): Problem {
    const flag = this.flag(field);
    return flag ? { field, flag, message: `${flag} ${value} ${rest}` } : { field, message: `${value} ${rest}` };
  }
}

/** The flag that sets `field` ('--start-rate' for steps.startPerSec), typed or not; undefined where none does. */
export function flagOf(field: string): string | undefined {
  const f = CONFIG_FLAGS.find((x) => x.config.path === field);
  return f ? `--${f.name}` : undefined;
}

/** No flag typed: every field is the file's (validation of a config alone). */
export const NO_FLAGS = new Given();

/**
 * A flag as the problem's line begins with it: with its value where that is a number ('--hold 0');
 * text is not repeated (a URL may hold a credential, said of but never shown: cross-field.ts).
 */
export function flagAsTyped(flag: string, value: unknown): string {
  return typeof value === 'number' ? `${flag} ${value}` : flag;
}
