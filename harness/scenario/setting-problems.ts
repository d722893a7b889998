/**
 * The problems of a scenario's settings beside its traffic: unknown keys (with the key most likely
 * meant), each in one line naming the field and the fix, as traffic.ts words the mix's. Pure, no
 * Node API: the k6 bundle reads a scenario through traffic.ts.
 */
import { nearest } from '../config/nearest.ts';

/** One line per key of `o` not in `keys`: `at`, the key, the key it most likely misspells, then `has`. */
export function unknownKeys(at: string, o: object, keys: readonly string[], has: string): string[] {
  return Object.keys(o)
    .filter((k) => !keys.includes(k))
    .map((k) => {
      const close = nearest(k, keys);
      return `${at}unknown key \`${k}\`${close ? ` (did you mean \`${close}\`?)` : ''}: ${has}`;
    });
}

/** A value as a message may show it: numbers as JavaScript prints them (NaN, Infinity), never a secret. */
export function shown(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}
