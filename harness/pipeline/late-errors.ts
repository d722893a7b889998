/**
 * An error the scenario's code left unhandled that surfaces while no engine instance listens (a
 * timer of the last arrivals firing as the reports are written, one between the warmup and the
 * steps) ended the CLI's process on one engine thread, with no report (decision 074). While a run's
 * pipeline runs in this thread, such an error is said once on the run's output, not counted (no
 * second is open for it); an exception that may be plateau's own stops the run, which ends as an
 * internal error with its report. Engine worker threads say theirs through the main thread
 * (worker-main.ts, workers.ts).
 */
import { catchUnhandled } from '../engine/unhandled.ts';
import { faultError } from '../engine/thrown-by.ts';
import { lateText } from '../../analysis/scenario-unhandled.ts';

export interface LateErrors {
  /** An exception that may be plateau's own, the first; null where none came. */
  readonly fault: { err: unknown } | null;
  /** The scenario's, counted. */
  readonly count: number;
  release(): void;
}

export function watchLateErrors(say: (line: string) => void, stop: () => void): LateErrors {
  const seen: { fault: { err: unknown } | null; count: number } = { fault: null, count: 0 };
  const release = catchUnhandled(
    (message) => {
      if (seen.count++ === 0) say(lateText(message));
    },
    (err) => {
      seen.fault ??= { err: faultError(err) };
      stop();
    },
    { fallback: true },
  );
  return Object.assign(seen, { release });
}
