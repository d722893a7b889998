import { describe, expect, it } from 'vitest';
import util from 'node:util';
import { CALLED_PROBLEM, calledEnvText, scenarioEnv, undeclaredFix, undeclaredProblem } from './scenario-env.ts';
import { contextFactory } from './context.ts';
import { ScenarioMistake } from './mistake.ts';

const ENV = { API_TOKEN: 'tok-123456', SHOP_AUTH: 'authval-wrong-77aa88bb', HOME: '/root' };

/** The ScenarioMistake f throws (its message and fix), or null. */
function mistake(f: () => unknown): [string, string] | null {
  try {
    f();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioMistake);
    return [(err as ScenarioMistake).message, (err as ScenarioMistake).fix];
  }
}

describe('ctx.env: the declared secrets alone', () => {
  const env = scenarioEnv(['API_TOKEN', 'UNSET_SECRET'], ENV);

  it('reads a declared variable, as a record', () => {
    expect(env.API_TOKEN).toBe('tok-123456');
    expect(env['API_TOKEN']).toBe('tok-123456');
    expect(env.UNSET_SECRET).toBeUndefined();
    expect({ ...env }).toEqual({ API_TOKEN: 'tok-123456', UNSET_SECRET: undefined });
    expect(Object.keys(env)).toEqual(['API_TOKEN', 'UNSET_SECRET']);
    expect(['API_TOKEN' in env, 'SHOP_AUTH' in env]).toEqual([true, false]);
  });

  it('refuses a variable not declared, set or not, naming it and the fix (no value in either)', () => {
    for (const name of ['SHOP_AUTH', 'HOME', 'NOT_SET_AT_ALL'])
      expect(mistake(() => env[name])).toEqual([undeclaredProblem(name), undeclaredFix(name)]);
    expect(undeclaredFix('SHOP_AUTH')).toMatch(/^list it in the scenario's secrets \(secrets: \["SHOP_AUTH"\]\)/);
    expect(undeclaredProblem('SHOP_AUTH')).not.toContain(ENV.SHOP_AUTH);
  });

  it('called as a function, the TypeError it throws is told with the record form (preflight and the load word it)', () => {
    const ctx = { env } as unknown as { env: (name: string) => string };
    let thrown: unknown;
    try {
      ctx.env('API_TOKEN');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    const message = (thrown as Error).message;
    expect(calledEnvText(message)).toBe(`${message}: ${CALLED_PROBLEM}`);
    expect(calledEnvText('env is not a function')).toBe(`env is not a function: ${CALLED_PROBLEM}`);
    expect(calledEnvText('ctx.environment is not a function')).toBeNull();
    expect(calledEnvText('myenv is not a function')).toBeNull();
  });

  it('what await, JSON and inspectors ask of any object is no variable: not refused', async () => {
    expect(await Promise.resolve(env)).toBe(env);
    expect(String((env as unknown as Record<symbol, unknown>)[Symbol.toStringTag])).toBe('undefined');
  });

  it('is read-only', () => {
    expect(() => Object.assign(env, { API_TOKEN: 'x' })).toThrow(/ctx\.env is read-only/);
    expect(env.API_TOKEN).toBe('tok-123456');
  });
});

describe("the native engine's ctx.env", () => {
  it("is the scenario's secrets of the environment it was given", () => {
    const ctx = contextFactory('run', '', ENV, { secrets: ['API_TOKEN'] })(1);
    expect(ctx.env.API_TOKEN).toBe('tok-123456');
    expect(mistake(() => ctx.env.SHOP_AUTH)?.[0]).toBe(undeclaredProblem('SHOP_AUTH'));
    // destructured as well as read on ctx
    const { env } = ctx;
    expect(Object.keys(env)).toEqual(['API_TOKEN']);
  });
});

describe('ctx.env read as a record (review G5, G6)', () => {
  it("has a record's own methods, and one arrival's Object.freeze of it breaks no other's reads (frozen already)", () => {
    const env = scenarioEnv(['API_TOKEN'], { API_TOKEN: 'tok-123456' });
    expect(env.hasOwnProperty('API_TOKEN')).toBe(true);
    expect(Object.prototype.propertyIsEnumerable.call(env, 'API_TOKEN')).toBe(true);
    expect(Object.freeze(env)).toBe(env);
    expect(Object.keys(env)).toEqual(['API_TOKEN']);
    expect({ ...env }).toEqual({ API_TOKEN: 'tok-123456' });
  });
});

describe('ctx.env is a record to every reader, its values hidden from inspectors (review G7)', () => {
  const env = scenarioEnv(['API_TOKEN', 'UNSET_SECRET'], { API_TOKEN: 'tok-123456', HOME: '/root' });

  it('serialises, spreads, clones and prints as the record of the declared names', () => {
    expect(typeof env).toBe('object');
    expect(JSON.stringify(env)).toBe('{"API_TOKEN":"tok-123456"}');
    expect(JSON.stringify({ env })).toBe('{"env":{"API_TOKEN":"tok-123456"}}');
    expect(JSON.stringify({ ...env })).toBe(JSON.stringify(env));
    expect(Object.entries(env)).toEqual([
      ['API_TOKEN', 'tok-123456'],
      ['UNSET_SECRET', undefined],
    ]);
    expect(`${env as unknown as string}`).toBe('[object Object]');
    expect(String(env)).toBe('[object Object]');
    expect(structuredClone(env)).toEqual({ API_TOKEN: 'tok-123456', UNSET_SECRET: undefined });
    expect(Object.isFrozen(env)).toBe(true);
    expect(Object.freeze(env)).toBe(env);
  });

  it('inspect (console.log) names each declared variable and whether it is set, never a value: the console is no scrubbed output', () => {
    const shown = "{ API_TOKEN: '[redacted]', UNSET_SECRET: undefined }";
    expect(util.inspect(env)).toBe(shown);
    expect(util.format('%s %o %O', env, env, env)).not.toContain('tok-123456');
    expect(util.format('%O', env)).toBe(shown);
    expect(util.inspect({ ctx: { env } })).toBe(`{ ctx: { env: ${shown} } }`);
    expect(util.inspect(env, { showProxy: true, showHidden: true })).not.toContain('tok-123456');
  });

  it('still refuses a variable not declared, and a write, after all that', () => {
    expect(mistake(() => env.HOME)).toEqual([undeclaredProblem('HOME'), undeclaredFix('HOME')]);
    expect(() => Object.assign(env, { API_TOKEN: 'x' })).toThrow(/ctx\.env is read-only/);
    expect(() => Object.assign(env, { OTHER: 'x' })).toThrow(/ctx\.env is read-only/);
    expect(env.API_TOKEN).toBe('tok-123456');
    expect(Object.keys(env)).toEqual(['API_TOKEN', 'UNSET_SECRET']);
  });
});
