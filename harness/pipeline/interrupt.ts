/**
 * Ctrl-C and SIGTERM: the first stops the load (the current engine stops within a second and the
 * report is still written, marked interrupted); a second one exits at once. The run store is
 * append-only lines plus an atomically renamed run.json, so exiting at any moment corrupts nothing.
 */
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
 * What a first SIGINT or SIGTERM does: hands both signals back to the OS (`uninstall`), says what
 * happens, and stops the load, unless the load has already ended.
 */
export function signalHandler(
  interrupt: Interrupt,
  log: (s: string) => void,
  uninstall: () => void,
): (sig: NodeJS.Signals) => void {
  return (sig) => {
    // The second signal must work even while the main thread is busy (rendering the report can hold
    // it for a second or more): hand both signals back to the OS, whose default ends the process at
    // once (exit status 128 + signal, 130 for Ctrl-C). The store survives any moment of exit.
    uninstall();
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
  const uninstall = () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  const handler = signalHandler(interrupt, log, uninstall);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return uninstall;
}
