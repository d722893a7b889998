import { afterEach, describe, expect, it } from 'vitest';
import { catchUnhandled, rejectionText } from './unhandled.ts';

/** The listener catchUnhandled added to this thread's process, called as Node calls it. */
function added(before: readonly Function[]): (reason: unknown) => void {
  const ours = process.listeners('unhandledRejection').filter((l) => !before.includes(l));
  expect(ours).toHaveLength(1);
  return (reason) => (ours[0] as (r: unknown, p: Promise<unknown>) => void)(reason, Promise.resolve());
}

describe('catchUnhandled', () => {
  const releases: (() => void)[] = [];
  afterEach(() => releases.splice(0).forEach((r) => r()));

  it('adds one listener for the thread, gives each rejection to the first engine still running, and removes it with the last', () => {
    const before = process.listeners('unhandledRejection');
    const first: string[] = [];
    const second: string[] = [];
    const releaseFirst = catchUnhandled((m) => first.push(m));
    const releaseSecond = catchUnhandled((m) => second.push(m));
    releases.push(releaseFirst, releaseSecond);
    const emit = added(before);
    emit(new Error('one'));
    releaseFirst();
    emit('two');
    expect([first, second]).toEqual([['one'], ['two']]);
    releaseSecond();
    expect(process.listeners('unhandledRejection')).toEqual(before);
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
