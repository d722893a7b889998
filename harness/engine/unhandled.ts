/**
 * A promise the scenario's code started and never awaited or caught (a transaction's
 * `promise.then(...)` left running) can reject after its arrival ended, and a timer or event handler
 * it set can throw with nobody to catch it. Node's default for either ends the thread: on one
 * engine thread in the CLI's own process the whole run died with no report; on a worker thread, the
 * run stopped as plateau's internal error. The rule is that a scenario's mistake during the
 * load costs arrivals, never the run. So while an engine runs, such an error is counted in the second
 * it came (BucketRecord.unhandled, with the first message), fails no arrival (its arrival had ended;
 * which one started it is unknown), and the report warns of it with the fix. An exception that may be
 * plateau's own (thrown-by.ts) goes to the engine's `fault` instead, which stops the run with its
 * report. Preflight's sample arrivals refuse the scenario's before load (harness/pipeline). One
 * listener per event per thread, passed to the engine instance that started first and is still
 * running.
 */
import { THROWN } from '../../analysis/scenario-unhandled.ts';
import { thrownByScenario } from './thrown-by.ts';

/** The scenario's error, as BucketRecord.unhandled keeps it; an exception that may be plateau's own. */
interface Listener {
  counted: (message: string) => void;
  fault: (err: unknown) => void;
}

const listeners: Listener[] = [];
/** A run's own, for what comes while no engine instance listens (pipeline/late-errors.ts). */
const fallbacks: Listener[] = [];

/** Marks an error thrown to unwind code whose fault was raised already (raiseFault): not counted again. */
export const RAISED: unique symbol = Symbol('plateau: its fault was raised');

const wasRaised = (err: unknown) => typeof err === 'object' && err !== null && RAISED in err;

function onRejection(reason: unknown): void {
  if (!wasRaised(reason)) (listeners[0] ?? fallbacks[0])?.counted(rejectionText(reason));
}

function onException(err: unknown): void {
  const to = listeners[0] ?? fallbacks[0];
  if (!to) throw err;
  if (wasRaised(err)) return;
  if (thrownByScenario(err)) to.counted(THROWN + rejectionText(err));
  else to.fault(err);
}

/**
 * Hands `err` to the fault of whoever listens now (an engine instance, else the run's fallback),
 * which stops the run with its report; false where nobody listens.
 */
export function raiseFault(err: unknown): boolean {
  const to = listeners[0] ?? fallbacks[0];
  to?.fault(err);
  return to !== undefined;
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

/**
 * Sends this thread's unhandled rejections and the scenario's uncaught exceptions to `counted`, and
 * other uncaught exceptions to `fault`, until the returned function is called. A fallback hears them
 * only while no other listener is there.
 */
export function catchUnhandled(
  counted: Listener['counted'],
  fault: Listener['fault'],
  o: { fallback?: boolean } = {},
): () => void {
  const listener = { counted, fault };
  const list = o.fallback ? fallbacks : listeners;
  if (listeners.length + fallbacks.length === 0) {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
  }
  list.push(listener);
  return () => {
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
    if (listeners.length + fallbacks.length === 0) {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    }
  };
}
