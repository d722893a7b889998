/**
 * ctx.env: the environment as the scenario sees it, on both engines (the k6 runtime builds it over
 * __ENV). It holds only the variables the scenario declares in `secrets`: those are the values the
 * scrubber (secret-scrub.ts) replaces in every file and line, so a value read here and echoed by
 * the target reaches no output. Reading any other name throws, naming the fix, and preflight's
 * sample arrivals find such a read before load (docs/decisions/065). No Node API: the k6 bundle
 * uses it.
 */
import { ScenarioMistake } from './mistake.ts';

export type ScenarioEnv = Readonly<Record<string, string | undefined>>;

/** What an await, JSON.stringify, a template literal or an inspector asks of any object: not a variable's name. */
const LOOKUPS = new Set(['then', 'toJSON', 'inspect', 'asymmetricMatch']);

export function undeclaredProblem(name: string): string {
  return `ctx.env.${name}: ${name} is not in the scenario's secrets, and ctx.env holds only those`;
}

export function undeclaredFix(name: string): string {
  return `list it in the scenario's secrets (secrets: [${JSON.stringify(name)}]): preflight then checks that it is set, and its value is scrubbed from every file and log plateau writes, even where the target echoes it`;
}

export const CALLED_PROBLEM = "ctx.env is not a function: it is a record of the scenario's secrets";
export const CALLED_FIX = "read a variable as ctx.env.NAME (or ctx.env['NAME']), NAME listed in the scenario's secrets";

/**
 * The declared variables' values, read-only. A Proxy over an arrow function, so that
 * `ctx.env('NAME')` (a getter's habit) throws the fix rather than "ctx.env is not a function"; an
 * arrow function has no property a Proxy must report (its length and name are configurable), so
 * the record's keys are the declared names alone.
 */
export function scenarioEnv(
  declared: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ScenarioEnv {
  const values = new Map(declared.map((name) => [name, env[name]]));
  const readOnly = (): never => {
    throw new TypeError("ctx.env is read-only: copy a value into a variable of the scenario's own");
  };
  return new Proxy(() => undefined, {
    get(_target, key) {
      if (typeof key === 'string' && values.has(key)) return values.get(key);
      if (typeof key === 'symbol' || LOOKUPS.has(key)) return undefined;
      // a record's own methods (ctx.env.hasOwnProperty('X')), read on the record as on any object
      if (key in Object.prototype) return Reflect.get(Object.prototype, key) as unknown;
      throw new ScenarioMistake(undeclaredProblem(key), undeclaredFix(key));
    },
    has: (_target, key) => typeof key === 'string' && values.has(key),
    ownKeys: () => [...values.keys()],
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === 'string' && values.has(key)
        ? { value: values.get(key), enumerable: true, configurable: true, writable: false }
        : undefined,
    apply() {
      throw new ScenarioMistake(CALLED_PROBLEM, CALLED_FIX);
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
    // frozen, the shared record would have to list the function's own length and name: refused,
    // so that one arrival's Object.freeze(ctx.env) breaks no other's (it is read-only already)
    preventExtensions: () => {
      throw new TypeError('ctx.env is read-only already, and shared: freeze a copy ({ ...ctx.env }) if you must');
    },
  }) as unknown as ScenarioEnv;
}
