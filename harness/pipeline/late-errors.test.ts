import { afterEach, describe, expect, it } from 'vitest';
import { watchLateErrors, type LateErrors } from './late-errors.ts';
import { catchUnhandled } from '../engine/unhandled.ts';
import { SCENARIO_SOURCE } from '../engine/thrown-by.ts';

/** The listeners added since `before`, called as Node calls them (emitting would reach vitest's too). */
function added(event: 'uncaughtException' | 'unhandledRejection', before: readonly Function[]) {
  const all: readonly Function[] =
    event === 'uncaughtException' ? process.listeners(event) : process.listeners('unhandledRejection');
  const ours = all.filter((l) => !before.includes(l));
  expect(ours).toHaveLength(1);
  return (x: unknown) => (ours[0] as (x: unknown, y: unknown) => void)(x, 'uncaughtException');
}

function thrownAt(message: string, where: string): Error {
  const e = new Error(message);
  e.stack = `Error: ${message}\n    at f (${where}:1:1)\n    at listOnTimeout (node:internal/timers:581:17)`;
  return e;
}

describe('watchLateErrors', () => {
  const open: (LateErrors | (() => void))[] = [];
  afterEach(() => open.splice(0).forEach((x) => (typeof x === 'function' ? x() : x.release())));

  it("says the scenario's first error once, counts the rest, and keeps a fault that may be plateau's, stopping the run", () => {
    const before = process.listeners('uncaughtException');
    const beforeRejections = process.listeners('unhandledRejection');
    const lines: string[] = [];
    let stops = 0;
    const late = watchLateErrors(
      (l) => lines.push(l),
      () => stops++,
    );
    open.push(late);
    const throwNow = added('uncaughtException', before);
    const rejectNow = added('unhandledRejection', beforeRejections);
    throwNow(thrownAt('late timer', `${SCENARIO_SOURCE}/srv/shop.ts`));
    rejectNow(new Error('late promise'));
    expect(lines).toEqual([
      "with no engine running, a timer or event handler of the scenario's code threw, uncaught: late timer (said here only, not counted in the report's warning; catch or await it in the scenario)",
    ]);
    expect([late.count, stops, late.fault]).toEqual([2, 0, null]);
    const bug = thrownAt('a bug', new URL('./run.ts', import.meta.url).href);
    throwNow(bug);
    throwNow(thrownAt('another', new URL('./steps.ts', import.meta.url).href));
    expect([late.fault, stops]).toEqual([{ err: bug }, 2]);
    late.release();
    expect(process.listeners('uncaughtException')).toEqual(before);
  });

  it('hears nothing while an engine instance listens: the engine counts in its second', () => {
    const before = process.listeners('uncaughtException');
    const lines: string[] = [];
    const late = watchLateErrors(
      (l) => lines.push(l),
      () => undefined,
    );
    open.push(late);
    const engine: string[] = [];
    const releaseEngine = catchUnhandled(
      (m) => engine.push(m),
      () => undefined,
    );
    open.push(releaseEngine);
    const throwNow = added('uncaughtException', before);
    throwNow(thrownAt('in the load', `${SCENARIO_SOURCE}/srv/shop.ts`));
    releaseEngine();
    throwNow(thrownAt('after it', `${SCENARIO_SOURCE}/srv/shop.ts`));
    expect([engine, late.count]).toEqual([['uncaught exception: in the load'], 1]);
    expect(lines[0]).toMatch(/threw, uncaught: after it/);
  });
});
