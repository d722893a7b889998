/**
 * The problems of a scenario's settings beside its traffic: unknown keys (with the key most likely
 * meant), `name`, `ids` and `secrets`, each in one line naming the field and the fix, as
 * traffic.ts words the mix's. Pure, no Node API: the k6 bundle reads a scenario through traffic.ts.
 */
import { nearest } from '../config/nearest.ts';
import { nameProblem } from './names.ts';
import { valueKind } from './value-kind.ts';

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
  return valueKind(v);
}

/**
 * The scenario's own name: the one entry's name without a mix, the run's title with one. It is
 * refused as a mix entry's is (a name built from data would name the report after one request).
 */
export function scenarioNameProblems(name: unknown): string[] {
  if (name === undefined) return [];
  const bad = nameProblem(name);
  return bad ? [`\`name\`: ${bad}; name the scenario by what it loads (name: 'shop'), or leave it out`] : [];
}

const IDS_KEYS = ['prefix', 'maxLength'];

/** `ids: { prefix?, maxLength? }`: ctx.uniqueId()'s prefix, and the id column preflight checks the ids against. */
export function idsProblems(ids: unknown): string[] {
  if (ids === undefined) return [];
  if (!ids || typeof ids !== 'object' || Array.isArray(ids))
    return [`\`ids\` is ${shown(ids)}: give an object, ids: { prefix: 'ord-', maxLength: 50 }`];
  const o = ids as Record<string, unknown>;
  const out = unknownKeys('`ids`: ', o, IDS_KEYS, 'ids has prefix and maxLength');
  if (o.prefix !== undefined && typeof o.prefix !== 'string')
    out.push(`\`ids.prefix\` is ${shown(o.prefix)}, not a string: give the text ids start with, e.g. prefix: 'ord-'`);
  const max = o.maxLength;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max > 0))
    out.push(
      `\`ids.maxLength\` ${shown(max)} is not a whole number above 0: give the length of the target's strictest id column, e.g. maxLength: 50`,
    );
  return out;
}

/**
 * `secrets: ['NAME', ...]`: the environment variables preflight requires. A value given here by
 * mistake may be a secret itself, so only a text shaped like a variable name is echoed.
 */
export function secretsProblems(secrets: unknown): string[] {
  if (secrets === undefined) return [];
  if (!Array.isArray(secrets)) {
    const name = typeof secrets === 'string' && /^[A-Z_][A-Z0-9_]{0,63}$/.test(secrets) ? secrets : 'API_KEY';
    return [
      `\`secrets\` is ${typeof secrets === 'string' ? 'a string' : shown(secrets)}: give an array of environment variable names, secrets: ['${name}']`,
    ];
  }
  return secrets.flatMap((v, i) =>
    typeof v === 'string' && v.trim() !== ''
      ? []
      : [
          `\`secrets[${i}]\` is ${typeof v === 'string' ? 'empty' : shown(v)}: each is the name of an environment variable, e.g. 'API_KEY'`,
        ],
  );
}

/** The fields a request spec may have (RequestSpec). */
export const REQUEST_SPEC_KEYS = ['method', 'url', 'headers', 'body'] as const;

/**
 * A request spec's unknown fields, checked on preflight's sample arrivals (not per request of the
 * load): a misspelt `methd` or `bdy` had silently sent a GET with no body. `at`: whose spec, e.g.
 * 'request(ctx) returned '.
 */
export function requestSpecProblem(spec: unknown, at: string): string | null {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return null;
  const bad = unknownKeys(at, spec, REQUEST_SPEC_KEYS, `a request has ${REQUEST_SPEC_KEYS.join(', ')}`);
  return bad.length > 0 ? bad.join('; ') : null;
}
