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

/** Node's util.inspect (console.log) asks an object for this; k6 has no util.inspect, and Symbol.for is no Node API. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

export function undeclaredProblem(name: string): string {
  return `ctx.env.${name}: ${name} is not in the scenario's secrets, and ctx.env holds only those`;
}

export function undeclaredFix(name: string): string {
  return `list it in the scenario's secrets (secrets: [${JSON.stringify(name)}]): preflight then checks that it is set, and its value is scrubbed from every file and log plateau writes, even where the target echoes it`;
}

export const CALLED_PROBLEM = "ctx.env is a record of the scenario's secrets, not a function";
export const CALLED_FIX = "read a variable as ctx.env.NAME (or ctx.env['NAME']), NAME listed in the scenario's secrets";

/**
 * A call of ctx.env (`ctx.env('NAME')`, a getter's habit), from what the engine threw ("ctx.env is
 * not a function", "env is not a function" where destructured): the message with the record form,
 * or null for any other.
 */
export function calledEnvText(message: string): string | null {
  return /(^|[^\w$])env is not a function/.test(message) ? `${message}: ${CALLED_PROBLEM}` : null;
}

/**
 * The declared variables' values, read-only: a frozen record whose own keys are the declared names
 * alone, so that JSON.stringify, a spread, Object.keys, structuredClone, typeof and a template
 * literal read it as the record the docs call it. Its prototype is a Proxy over an empty object
 * (itself over Object.prototype): a read the record does not hold reaches it and is refused, unless
 * it is a record's own method (ctx.env.hasOwnProperty('X')) or what any reader asks of any object
 * (LOOKUPS, symbols). Inspected (console.log), it shows the names and which are set, never a value:
 * a scenario's console output goes to the terminal unscrubbed.
 */
export function scenarioEnv(
  declared: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ScenarioEnv {
  const values = new Map(declared.map((name) => [name, env[name]]));
  const readOnly = (): never => {
    throw new TypeError("ctx.env is read-only: copy a value into a variable of the scenario's own");
  };
  const shown = () => Object.fromEntries([...values].map(([name, v]) => [name, v === undefined ? v : '[redacted]']));
  const refusing = new Proxy(Object.create(Object.prototype) as object, {
    get(target, key, receiver) {
      if (key === INSPECT) return shown;
      if (typeof key === 'symbol' || LOOKUPS.has(key)) return undefined;
      if (key in target) return Reflect.get(target, key, receiver) as unknown;
      throw new ScenarioMistake(undeclaredProblem(key), undeclaredFix(key));
    },
    // a write of a name not declared (one declared meets its own setter)
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
    setPrototypeOf: readOnly,
  });
  const record = Object.create(refusing) as Record<string, string | undefined>;
  for (const [name, value] of values)
    Object.defineProperty(record, name, { get: () => value, set: readOnly, enumerable: true });
  return Object.freeze(record);
}
