/**
 * Accurate simulated work. setTimeout alone fires up to ~1 ms early or late (libuv rounds its
 * loop clock to whole milliseconds), which would skew a demo whose capacity is slots / holdMs.
 * We sleep on a timer until SPIN_MS before the deadline, then finish with setImmediate turns
 * (cheap: the event loop keeps serving I/O between them), so the hold ends within a few tenths
 * of a millisecond of the deadline.
 */
import { performance } from 'node:perf_hooks';

const SPIN_MS = 1;

/** Resolve as soon as performance.now() >= deadlineMs. */
export function sleepUntil(deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    const step = (): void => {
      const remainingMs = deadlineMs - performance.now();
      if (remainingMs <= 0) resolve();
      else if (remainingMs > SPIN_MS) setTimeout(step, remainingMs - SPIN_MS);
      else setImmediate(step);
    };
    step();
  });
}

/** Hold for holdMs measured from startedAtMs (a performance.now() reading). */
export function holdFrom(startedAtMs: number, holdMs: number): Promise<void> {
  return sleepUntil(startedAtMs + holdMs);
}
