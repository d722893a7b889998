/**
 * Ctrl-C and SIGTERM: the first stops the load (the current engine stops within a second and the
 * report is still written, marked interrupted); a second one exits at once. The run store is
 * append-only lines plus an atomically renamed run.json, so exiting at any moment corrupts nothing.
 */
export class Interrupt {
  interrupted = false;
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

export function installSignalHandlers(interrupt: Interrupt, log: (s: string) => void): () => void {
  const handler = (sig: NodeJS.Signals) => {
    // The second signal must work even while the main thread is busy (rendering the report can hold
    // it for a second or more): hand both signals back to the OS, whose default ends the process at
    // once (exit status 128 + signal, 130 for Ctrl-C). The store survives any moment of exit.
    uninstall();
    log(
      `\n${sig}: stopping the load and writing the report (press Ctrl-C again to exit at once; runs/ keeps every second recorded so far)`,
    );
    interrupt.trigger();
  };
  const uninstall = () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return uninstall;
}
