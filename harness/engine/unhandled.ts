/**
 * A promise the scenario's code started and never awaited or caught (a transaction's
 * `promise.then(...)` left running) can reject after its arrival ended. Node's default for an
 * unhandled rejection ends the thread: on one engine thread in the CLI's own process the whole run
 * died with no report; on a worker thread, the run stopped as plateau's internal error. The issue's
 * rule is that a scenario's mistake during the load costs arrivals, never the run. So while an
 * engine runs, such a rejection is counted in the second it came (BucketRecord.unhandled, with the
 * first message), fails no arrival (its arrival had ended; which one started it is unknown), and the
 * report warns of it with the fix. Preflight's sample arrivals refuse it before load
 * (harness/pipeline). One listener per thread, passed to the engine instance that started first
 * and is still running.
 */
type Listener = (message: string) => void;

const listeners: Listener[] = [];

function onRejection(reason: unknown): void {
  listeners[0]?.(rejectionText(reason));
}

/** A rejection's reason in words: an Error's message (its name where not a plain Error), else the value. */
export function rejectionText(reason: unknown): string {
  if (reason instanceof Error) return reason.name === 'Error' ? reason.message : `${reason.name}: ${reason.message}`;
  if (typeof reason === 'string') return reason;
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}

/** Sends this thread's unhandled rejections to `listener` until the returned function is called. */
export function catchUnhandled(listener: Listener): () => void {
  if (listeners.length === 0) process.on('unhandledRejection', onRejection);
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
    if (listeners.length === 0) process.off('unhandledRejection', onRejection);
  };
}
