/**
 * Ctrl-C and SIGTERM: the first stops the load (the current engine stops within a second and the
 * report is still written, marked interrupted); a second one, past REPEAT_WINDOW_MS (or
 * PLATEAU_SIGNAL_REPEAT_MS), exits at once. The run store is
 * append-only lines plus an atomically renamed run.json, so exiting at any moment corrupts nothing.
 */
import { PlateauError } from '../errors.ts';

export class Interrupt {
  interrupted = false;
  /** Set once the stages are over (the load ended; only the report is left): a signal then interrupts nothing. */
  loadEnded = false;
  /** The run's directory, once made (output.dir/<run id>): what a signal's message names. */
  runDir: string | null = null;
  private readonly listeners = new Set<() => void>();

  trigger(): void {
    if (this.interrupted) return;
    this.interrupted = true;
    for (const l of this.listeners) l();
  }

  /** Calls `fn` on interruption (at once if already interrupted); returns an unsubscribe. */
  on(fn: () => void): () => void {
    if (this.interrupted) {
      fn();
      return () => undefined;
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

/**
 * How long after the first signal a repeat is taken as the same request. One request often comes
 * twice: GNU timeout signals its child and then the child's process group, a CI runner or npx
 * relays its own (both within milliseconds, or tens of them on a loaded machine); taken as "exit at
 * once", that second copy had left a run with no report. Half a second covers such relays with
 * room for a busy machine, and is shorter than anyone takes to read the first signal's line and
 * press Ctrl-C again on purpose (a double tap inside it is taken as one press: press again).
 */
export const REPEAT_WINDOW_MS = 500;

/**
 * The window from PLATEAU_SIGNAL_REPEAT_MS (milliseconds, 0 or more), where a CI runner's relays
 * take longer, or 0 to take every repeat as a second request; REPEAT_WINDOW_MS otherwise.
 */
export function repeatWindowMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.PLATEAU_SIGNAL_REPEAT_MS;
  if (raw === undefined || raw.trim() === '') return REPEAT_WINDOW_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0)
    throw new PlateauError(
      `PLATEAU_SIGNAL_REPEAT_MS=${JSON.stringify(raw)} is not a number of milliseconds`,
      'set it to 0 or more (500 by default), or unset it',
      'signal-window-invalid',
    );
  return ms;
}

/** What the signal handler does to the process, given so that a test can watch it. */
export interface SignalControl {
  /** Hands SIGINT and SIGTERM back to the OS, whose default ends the process at once. */
  uninstall(): void;
  /** Ends the process as the signal's default does (128 + signal). */
  exitBy(sig: NodeJS.Signals): void;
  /** Calls fn after ms (a timer that keeps no process alive). */
  later(fn: () => void, ms: number): void;
  nowMs(): number;
}

/**
 * SIGINT and SIGTERM: the first says what happens and stops the load (unless it has already
 * ended); a repeat within REPEAT_WINDOW_MS is the same request and is ignored; past it the signals
 * are the OS's again, and a second one exits at once.
 */
export function signalHandler(
  interrupt: Interrupt,
  log: (s: string) => void,
  control: SignalControl,
  windowMs: number = REPEAT_WINDOW_MS,
): (sig: NodeJS.Signals) => void {
  let firstAtMs: number | null = null;
  return (sig) => {
    if (firstAtMs !== null) {
      if (control.nowMs() - firstAtMs < windowMs) return;
      // the window's end came while the main thread was busy, before its timer could run: exit as the OS would have
      control.uninstall();
      control.exitBy(sig);
      return;
    }
    firstAtMs = control.nowMs();
    // The second signal must work even while the main thread is busy (rendering the report can hold
    // it for a second or more): once the window is over, hand both signals back to the OS, whose
    // default ends the process at once (exit status 128 + signal, 130 for Ctrl-C). The store
    // survives any moment of exit.
    // with no window, at once: a timer could not run while the thread is busy stopping the load
    if (windowMs <= 0) control.uninstall();
    else control.later(control.uninstall, windowMs);
    const dir = interrupt.runDir;
    if (interrupt.loadEnded) {
      // the run is complete and its report on the way: nothing to stop, and the run stays complete
      log(`\n${sig}: the load has ended; writing the report (press Ctrl-C again to exit at once${atOnce(dir, '')})`);
      return;
    }
    log(
      `\n${sig}: stopping the load and writing the report (press Ctrl-C again to exit at once${atOnce(dir, ' recorded so far')})`,
    );
    interrupt.trigger();
  };
}

/**
 * What an exit at once keeps: the run's directory, every second of it, and the report's files
 * written so far. They come in order (harness/report.ts writeReports): report.md, summary.json and
 * the CSVs first, report.html and the charts last, which an exit at once may leave out; nothing
 * can say so after it (the OS ends the process), so the first signal says it.
 */
function atOnce(dir: string | null, sofar: string): string {
  if (dir === null) return ': nothing is recorded yet';
  return `: ${dir} keeps every second${sofar}; report.md, summary.json and the CSVs come first, report.html and the charts come last, and if they are missing \`plateau report ${dir}\` writes them from what it keeps`;
}

export function installSignalHandlers(interrupt: Interrupt, log: (s: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const uninstall = () => {
    clearTimeout(timer);
    clearImmediate(immediate);
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  const handler = signalHandler(
    interrupt,
    log,
    {
      uninstall,
      exitBy: (sig) => process.kill(process.pid, sig),
      // A signal that came while the thread was busy past the window waits in libuv's pipe, read in
      // the loop's poll phase, after its timers: removed in the timer itself, the handler would miss
      // it (that second Ctrl-C lost). After the poll phase (an immediate), the handler has read it.
      later: (fn, ms) => void (timer = setTimeout(() => (immediate = setImmediate(fn).unref()), ms).unref()),
      nowMs: () => performance.now(),
    },
    repeatWindowMs(process.env),
  );
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return uninstall;
}
