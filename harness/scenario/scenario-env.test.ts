import { describe, expect, it } from 'vitest';
import { CALLED_FIX, CALLED_PROBLEM, scenarioEnv, undeclaredFix, undeclaredProblem } from './scenario-env.ts';
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

  it('called as a function, names the record form', () => {
    const call = env as unknown as (name: string) => string;
    expect(mistake(() => call('API_TOKEN'))).toEqual([CALLED_PROBLEM, CALLED_FIX]);
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
  it("has a record's own methods, and one arrival's Object.freeze of it breaks no other's reads", () => {
    const env = scenarioEnv(['API_TOKEN'], { API_TOKEN: 'tok-123456' });
    expect(env.hasOwnProperty('API_TOKEN')).toBe(true);
    expect(Object.prototype.propertyIsEnumerable.call(env, 'API_TOKEN')).toBe(true);
    expect(`${env as unknown as string}`).toBe('[object Function]');
    expect(() => Object.freeze(env)).toThrow(/read-only already, and shared: freeze a copy/);
    expect(Object.keys(env)).toEqual(['API_TOKEN']);
    expect({ ...env }).toEqual({ API_TOKEN: 'tok-123456' });
  });
});
