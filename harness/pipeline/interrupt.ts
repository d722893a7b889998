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
    if (this.interrupted) { fn(); return () => undefined; }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export function installSignalHandlers(interrupt: Interrupt, log: (s: string) => void): () => void {
  let count = 0;
  const handler = (sig: NodeJS.Signals) => {
    count++;
    if (count > 1) {
      log(`\nsecond ${sig}: exiting now; runs/ keeps every second recorded so far (plateau report rebuilds the report)`);
      process.exit(130);
    }
    log(`\n${sig}: stopping the load and writing the report (press Ctrl-C again to exit at once)`);
    interrupt.trigger();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => { process.off('SIGINT', handler); process.off('SIGTERM', handler); };
}
