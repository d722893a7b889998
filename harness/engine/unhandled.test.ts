import { afterEach, describe, expect, it } from 'vitest';
import { catchUnhandled, rejectionText } from './unhandled.ts';
import { SCENARIO_SOURCE } from './thrown-by.ts';
import { THROWN } from '../../analysis/scenario-unhandled.ts';
import { addedListener, thrownAt } from '../../test/helpers/uncaught.ts';

const fail = (err: unknown) => {
  throw new Error(`not a fault: ${String(err)}`);
};

describe('catchUnhandled', () => {
  const releases: (() => void)[] = [];
  afterEach(() => releases.splice(0).forEach((r) => r()));

  it('adds one listener for the thread, gives each rejection to the first engine still running, and removes it with the last', () => {
    const before = process.listeners('unhandledRejection');
    const first: string[] = [];
    const second: string[] = [];
    const releaseFirst = catchUnhandled((m) => first.push(m), fail);
    const releaseSecond = catchUnhandled((m) => second.push(m), fail);
    releases.push(releaseFirst, releaseSecond);
    const emit = addedListener('unhandledRejection', before);
    emit(new Error('one'));
    releaseFirst();
    emit('two');
    expect([first, second]).toEqual([['one'], ['two']]);
    releaseSecond();
    expect(process.listeners('unhandledRejection')).toEqual(before);
  });

  it("counts the scenario's uncaught exceptions as its own (marked thrown) and gives any other to the engine's fault, removing its listener with the last", () => {
    const before = process.listeners('uncaughtException');
    const counted: string[] = [];
    const faults: unknown[] = [];
    const release = catchUnhandled(
      (m) => counted.push(m),
      (e) => faults.push(e),
    );
    releases.push(release);
    const emit = addedListener('uncaughtException', before);
    const timer = thrownAt(
      'boom in a timer',
      `Timeout._onTimeout (${SCENARIO_SOURCE}/srv/shop.ts:18:17)`,
      'listOnTimeout (node:internal/timers:581:17)',
    );
    const ours = thrownAt(
      'undefined is not a function',
      `VuConnection.onData (${new URL('./vu-connection.ts', import.meta.url).href}:40:3)`,
    );
    emit(timer);
    emit('a string');
    emit(ours);
    expect(counted).toEqual([`${THROWN}boom in a timer`, `${THROWN}a string`]);
    expect(faults).toEqual([ours]);
    release();
    expect(process.listeners('uncaughtException')).toEqual(before);
  });

  it('words a reason: an Error by its message (its name where not a plain Error), a string as it is, another value as JSON', () => {
    expect(rejectionText(new Error('boom'))).toBe('boom');
    expect(rejectionText(new RangeError('out'))).toBe('RangeError: out');
    expect(rejectionText('plain')).toBe('plain');
    expect(rejectionText({ code: 7 })).toBe('{"code":7}');
    expect(rejectionText(undefined)).toBe('undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(rejectionText(cyclic)).toBe('[object Object]');
  });
});
