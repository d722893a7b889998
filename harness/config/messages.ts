/**
 * zod's issues worded as plateau's problems: each names the bound it broke and the fix, read from
 * the field's own schema (description, bounds, example or default). zod's own texts ("Too big:
 * expected number to be <=1") never reach the user; a field's message written in the schema
 * (a URL, a run id, a regular expression) is kept as it is.
 */
import type { z } from 'zod';
import {
  boundsText,
  defOf,
  exampleOf,
  fieldOf,
  isShare,
  keysOf,
  literalsOf,
  numberRule,
  schemaAt,
  type Field,
} from './introspect.ts';
import { nearest } from './nearest.ts';
import { flagAsTyped, flagOf, NO_FLAGS, type Given, type Problem } from './given.ts';

export type { Problem } from './given.ts';

/** What the per-parse error map gives every issue that has no message of its own in the schema. */
export const NO_MESSAGE = '\u0000plateau: worded by messages.ts';

type Issue = z.core.$ZodIssue;

/** What to give for a required section that is missing altogether: all its required fields, not one pass's worth. */
/** The missing target's last choice, which a command without the demo (k6-script) words as its own. */
export const DEMO_CHOICE = ', or --demo for the embedded demo target';

const MISSING_SECTION: Record<string, string> = {
  target: `missing: give the URL under load, --target http://host:port/path (or target: { url } in plateau.config.ts)${DEMO_CHOICE}`,
  steps:
    'missing: give the stepped load, --start-rate, --step-rate and --max-rate, and its timing, --ramp and --hold (or steps: { startPerSec, stepPerSec, maxPerSec, rampS, holdS } in plateau.config.ts)',
};

export function fieldName(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(config)';
}

export function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    raw,
  );
}

/** One issue as one problem or more (an unknown key each gets its own line, with its nearest valid key). */
export function problemsOf(issue: Issue, root: z.ZodType, raw: unknown, given: Given = NO_FLAGS): Problem[] {
  const field = fieldName(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const valid = keysOf(schemaAt(root, issue.path, raw) ?? root) ?? [];
    return issue.keys.map((key) => ({ field, message: unknownKey(key, valid, issue.path) }));
  }
  const input = valueAt(raw, issue.path);
  // a field a flag set is said as the flag (with a number typed): "--hold 0: must be > 0 ...: give --hold ..."
  const flag = given.flag(field);
  const message =
    issue.code === 'custom' || issue.message !== NO_MESSAGE
      ? issue.message
      : worded(issue, field, input, root, raw, flag);
  return [flag ? { field, flag, message: `${flagAsTyped(flag, input)}: ${message}` } : { field, message }];
}

/** The fix of giving `field` a value (`to`: 'a number > 0'), in the words of the flag that set it when one did. */
function setText(field: string, flag: string | undefined, to?: string): string {
  if (flag) return `give ${flag}${to === undefined ? '' : ` ${to}`}`;
  return `set ${field}${to === undefined ? '' : ` to ${to}`}`;
}

function unknownKey(key: string, valid: string[], path: readonly PropertyKey[]): string {
  const close = nearest(key, valid);
  const where = path.length ? `${fieldName(path)}: ` : '';
  const hint = close ? `did you mean "${close}"?` : `${where}the keys are ${valid.join(', ')}`;
  return `unknown key "${key}": remove or correct the spelling (${hint})`;
}

function worded(
  issue: Issue,
  field: string,
  input: unknown,
  root: z.ZodType,
  raw: unknown,
  flag: string | undefined,
): string {
  const schema = schemaAt(root, issue.path, raw);
  const f = schema ? fieldOf(schema) : undefined;
  const what = f?.description ? ` (${f.description})` : '';
  const eg = f ? exampleText(exampleOf(f)) : '';
  if (issue.code === 'invalid_type') {
    const section = issue.path.length === 1 ? MISSING_SECTION[String(issue.path[0])] : undefined;
    if (section && input === undefined) return section;
    // a flag given twice reaches the config as an array of its values
    if (Array.isArray(input) && input.length > 1 && input.every((x) => typeof x !== 'object')) {
      return `must be given once, got several values (${input.map(String).join(', ')})${what}: give it once`;
    }
    // a user of flags reads the flag too: "set steps.startPerSec (or --start-rate), e.g. 50"
    const orFlag = flagOf(field);
    if (input === undefined) return `missing${what}: set ${field}${orFlag ? ` (or ${orFlag})` : ''}${eg}`;
    if (issue.path.length === 0)
      return `the config must be an object with sections such as target and steps; got ${shown(input)}: export default defineConfig({ target: { url }, steps: { ... } }) (docs/config.md lists every field)`;
  }
  if (f && defOf(f.core).type === 'number') return numberMessage(issue, f, field, input, what, flag);
  switch (issue.code) {
    case 'invalid_value': {
      const options = literalsOf(f?.core).length ? literalsOf(f?.core) : issue.values;
      const close = typeof input === 'string' ? nearest(input, options.map(String)) : undefined;
      return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}${what}; got ${shown(input)}: ${setText(field, flag, close ? JSON.stringify(close) : 'one of them')}`;
    }
    case 'invalid_union': {
      const options = 'options' in issue ? (issue as { options?: unknown[] }).options : undefined;
      if (options?.length)
        return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}; got ${shown(input)}: set ${field} to the kind you mean`;
      return `is not any of the accepted forms${what}; got ${shown(input)}: see docs/config.md for ${field}`;
    }
    case 'too_small':
      if (issue.origin === 'string')
        return `must not be empty${what}: ${flag ? `give ${flag} ${eg ? `a value${eg}` : 'a non-empty string'}` : `set ${field}${eg || ' to a non-empty string'}`}`;
      if (issue.origin === 'array') return `must list at least ${issue.minimum}${what}: add to ${field}`;
      break;
    case 'invalid_type':
      return `must be ${expectedText(issue.expected, f)}${what}; got ${shown(input)}: ${setText(field, flag, expectedText(issue.expected, f))}${eg}`;
    case 'invalid_format':
      return `must be a ${issue.format}${what}; got ${shown(input)}: ${setText(field, flag, flag ? `a ${issue.format}` : undefined)}${eg}`;
    default:
      break;
  }
  return `is not valid${what}; got ${shown(input)}: ${flag ? `give ${flag} a value as docs/config.md describes ${field}` : `set ${field} as docs/config.md describes`}${eg}`;
}

/** A number out of bounds, fractional where whole, or not a number: the bound, what was given, the fix. */
function numberMessage(
  issue: Issue,
  f: Field,
  field: string,
  input: unknown,
  what: string,
  flag: string | undefined,
): string {
  const r = numberRule(f.core);
  const bounds = boundsText(r);
  const kind = [r.int ? 'a whole number' : 'a number', bounds].filter(Boolean).join(' ');
  // "must be > 0" for a number out of bounds; "must be a whole number > 0" for 1.5, "a number > 0" for "x"
  const head = issue.code === 'too_small' || issue.code === 'too_big' ? bounds : kind;
  const ex = exampleOf(f);
  // a flag's value is on the line already ("--hold 0: must be > 0"), and its example is the flag's
  if (flag) return `must be ${head}${what}: give ${flag} ${kind}${ex !== undefined ? `, e.g. ${flag} ${ex}` : ''}`;
  let fix = `set ${field} to ${kind}${ex !== undefined ? `, e.g. ${ex}` : ''}`;
  if (typeof input === 'string' && input.trim() !== '' && Number.isFinite(Number(input)))
    fix = `write the number without quotes, ${String(issue.path.at(-1))}: ${Number(input)}`;
  else if (isShare(r) && typeof input === 'number' && input >= 2 && input < 10 && Number.isInteger(input))
    // 9 is as likely 90% (a tenth's digit) as 9%: both are offered
    fix = `a share is written as a fraction: set ${field} to ${input / 100} for ${input}%, or ${input / 10} for ${input * 10}%`;
  else if (isShare(r) && typeof input === 'number' && input >= 2 && input <= 100)
    fix = `a share is written as a fraction (${input}% is ${input / 100}): set ${field} to ${input / 100}`;
  return `must be ${head}${what}; got ${shown(input)}: ${fix}`;
}

function expectedText(expected: string, f: Field | undefined): string {
  if (f && defOf(f.core).type === 'object') return `a section { ${(keysOf(f.core) ?? []).join(', ')} }`;
  if (expected === 'array') return 'a list';
  if (expected === 'boolean') return 'true or false';
  if (expected === 'record') return 'an object of names to strings';
  return `a ${expected}`;
}

function exampleText(v: unknown): string {
  return v === undefined ? '' : `, e.g. ${JSON.stringify(v)}`;
}

/** The given value as the user wrote it. */
function shown(v: unknown): string {
  if (typeof v === 'number')
    return Number.isNaN(v)
      ? 'NaN (not a number: computed in the config from text or an unset variable, e.g. Number(process.env.X)?)'
      : String(v);
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (v === undefined) return 'nothing';
  return String(v);
}
