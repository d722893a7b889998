/**
 * Field builders for the config schema. Every field carries its description (and, without a
 * default, an example) in zod's metadata: the one source of docs/config.md (config-doc.ts) and of
 * the fix in every validation problem (messages.ts). Bounds are left to zod's checks so that the
 * messages and the docs read them from one place; a field sets its own text only where a test or
 * the CLI has long promised it (verdicts.generatorBusyMax).
 */
import { z } from 'zod';

/** zod metadata: what the field is, and an example value for fields with no default. */
export function about<T>(description: string, example?: T): { description: string; examples?: T[] } {
  return example === undefined ? { description } : { description, examples: [example] };
}

export const positive = (what: string, example?: number) => z.number().positive().meta(about(what, example));
export const nonNegative = (what: string, example?: number) => z.number().min(0).meta(about(what, example));
/**
 * A timer's wait in ms: positive, and no longer than a timer waits (a signed 32-bit count; Node
 * fires a longer one after 1 ms, so http.timeoutMs 1e12 had timed every request out at once).
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;
export const timerMs = (what: string) => z.number().positive().max(LONGEST_TIMER_MS).meta(about(what));
export const positiveInt = (what: string, example?: number) => z.number().int().positive().meta(about(what, example));
/** A share of 1 such as a delivery ratio: 0 < x <= 1. */
export const share = (what: string, error?: string) =>
  z
    .number(error ? { error } : undefined)
    .gt(0, error ? { error } : undefined)
    .lte(1, error ? { error } : undefined)
    .meta(about(what));
export const text = (what: string, example?: string) => z.string().meta(about(what, example));
/**
 * A path on the target's origin, as sent: it starts with '/'. A bare 'health' passed preflight
 * (resolved against target.url's own path) and then failed the RTT stage as a bug.
 */
export const originPath = (what: string) =>
  z
    .string()
    .startsWith('/', {
      error: (iss) =>
        `must be a path on the target's origin, starting with '/': got ${JSON.stringify(iss.input)}, write ${JSON.stringify(`/${String(iss.input)}`)}`,
    })
    .meta(about(what));
/** A string that must not be empty. */
export const nonEmpty = (what: string, example?: string) => z.string().min(1).meta(about(what, example));
export const flag = (what: string) => z.boolean().meta(about(what));
