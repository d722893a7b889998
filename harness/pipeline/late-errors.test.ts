import { afterEach, describe, expect, it } from 'vitest';
import { watchLateErrors, type LateErrors } from './late-errors.ts';
import { catchUnhandled } from '../engine/unhandled.ts';
import { SCENARIO_SOURCE } from '../engine/thrown-by.ts';
import { addedListener, timerThrew } from '../../test/helpers/uncaught.ts';

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
    const throwNow = addedListener('uncaughtException', before);
    const rejectNow = addedListener('unhandledRejection', beforeRejections);
    throwNow(timerThrew('late timer', `${SCENARIO_SOURCE}/srv/shop.ts`));
    rejectNow(new Error('late promise'));
    expect(lines).toEqual([
      "with no engine running, a timer or event handler of the scenario's code threw, uncaught: late timer (said here only, not counted in the report's warning; catch or await it in the scenario)",
    ]);
    expect([late.count, stops, late.fault]).toEqual([2, 0, null]);
    const bug = timerThrew('a bug', new URL('./run.ts', import.meta.url).href);
    throwNow(bug);
    throwNow(timerThrew('another', new URL('./steps.ts', import.meta.url).href));
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
    const throwNow = addedListener('uncaughtException', before);
    throwNow(timerThrew('in the load', `${SCENARIO_SOURCE}/srv/shop.ts`));
    releaseEngine();
    throwNow(timerThrew('after it', `${SCENARIO_SOURCE}/srv/shop.ts`));
    expect([engine, late.count]).toEqual([['uncaught exception: in the load'], 1]);
    expect(lines[0]).toMatch(/threw, uncaught: after it/);
  });
});
