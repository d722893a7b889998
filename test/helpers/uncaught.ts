/**
 * Unhandled errors for the tests of plateau's listeners (harness/engine/unhandled.ts): an Error with
 * the stack a test needs, and a listener called as Node calls it (emitting the event would reach
 * vitest's listeners too).
 */
import { expect } from 'vitest';

/** An Error whose stack reads `frames` as its `at` lines. */
export function thrownAt(message: string, ...frames: string[]): Error {
  const e = new Error(message);
  e.stack = [`Error: ${message}`, ...frames.map((f) => `    at ${f}`)].join('\n');
  return e;
}

/** An Error a timer's callback in `where` (a file path or URL) threw, called by Node's timers. */
export function timerThrew(message: string, where: string): Error {
  return thrownAt(message, `f (${where}:1:1)`, 'listOnTimeout (node:internal/timers:581:17)');
}

/** The one listener for `event` added since `before` were the listeners, called as Node calls it. */
export function addedListener(
  event: 'uncaughtException' | 'unhandledRejection',
  before: readonly Function[],
): (x: unknown) => void {
  const all: readonly Function[] =
    event === 'uncaughtException' ? process.listeners('uncaughtException') : process.listeners('unhandledRejection');
  const ours = all.filter((l) => !before.includes(l));
  expect(ours).toHaveLength(1);
  const second = event === 'uncaughtException' ? 'uncaughtException' : Promise.resolve();
  return (x) => (ours[0] as (x: unknown, y: unknown) => void)(x, second);
}
