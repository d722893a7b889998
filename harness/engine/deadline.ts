/**
 * http.timeoutMs as a total deadline per request. undici's headersTimeout and bodyTimeout are idle
 * timers (time without progress), so a body that drips one byte a second never times out with
 * them alone; the fault matrix (test/faults.test.ts) shows it.
 *
 * The design keeps VuClient.send lean: no timer per request. Each VU has at most one request in
 * flight and stores its deadline (a number) and undici's abort function when it is sent; one sweep
 * timer per VU pool visits every VU every `everyMs` and aborts the expired. A request therefore
 * ends between timeoutMs and timeoutMs + everyMs after it started (connect timeout aside: undici
 * hands out the abort function only once the request is written to a connected socket, and its
 * connect timeout bounds the time before that).
 */
import { performance } from 'node:perf_hooks';

/** Sweep period: the deadline's resolution. */
export const SWEEP_EVERY_MS = 100;

/** The error code an expired request fails with; outcome.ts classify() maps it to `timeout`. */
export const DEADLINE_CODE = 'PLATEAU_DEADLINE';

export interface Expiring {
  /** Aborts the request in flight when its deadline is at or before nowMs. */
  expire(nowMs: number): void;
}

export function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`request exceeded its total deadline of ${timeoutMs} ms (http.timeoutMs)`), {
    code: DEADLINE_CODE,
  });
}

/**
 * A pass that runs at the end of this loop turn (setImmediate), once the turn has read the I/O that
 * was waiting, with the time it was scheduled at (decision 041). After a stall of this thread the
 * timers run before the I/O: a deadline judged in a timer would abort a request, or fail a
 * transaction, whose answer arrived in time but was not read yet. The time is the timer's, not the
 * pass's, so that a stall between the two (an I/O callback of that turn) cannot expire an answer
 * that came in it. A pass not yet run is not scheduled again. Not unref'd: an unref'd immediate lets
 * the loop block in its poll phase first.
 */
export class TurnEndPass {
  private pending: NodeJS.Immediate | null = null;

  constructor(private readonly pass: (nowMs: number) => void) {}

  schedule(nowMs: number): void {
    if (this.pending !== null) return;
    this.pending = setImmediate(() => {
      this.pending = null;
      this.pass(nowMs);
    });
  }

  cancel(): void {
    if (this.pending !== null) clearImmediate(this.pending);
    this.pending = null;
  }
}

/**
 * One timer for a live list of VUs (the list may grow while the sweep runs): each pass judges the
 * deadlines by the time its timer fired, at the end of that turn (TurnEndPass).
 */
export class DeadlineSweep {
  private readonly timer: NodeJS.Timeout;
  private readonly pass = new TurnEndPass((nowMs) => this.expire(nowMs));

  constructor(
    private readonly items: readonly Expiring[],
    everyMs = SWEEP_EVERY_MS,
  ) {
    this.timer = setInterval(() => this.pass.schedule(performance.now()), everyMs);
    this.timer.unref();
  }

  /** Aborts every request whose deadline is at or before nowMs (the graceful stop's end calls it). */
  expire(nowMs: number = performance.now()): void {
    for (let i = 0; i < this.items.length; i++) this.items[i].expire(nowMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.pass.cancel();
  }
}

/** A timer this much late or more means this thread was held (a timer is otherwise late by a few ms). */
const STALL_MS = 100;

/**
 * A total deadline for one request outside the engine (preflight's sample): the signal aborts with
 * a TimeoutError once `timeoutMs` has passed, on the turn after its timer, as the sweep does, so
 * that a response which arrived in time is read first. And a deadline this thread missed by a stall
 * of its own (its timer fired late) is given the stalled time back once, up to `timeoutMs`: a
 * target on this thread (a test's, or one answering within the stall) could not be read in it, and
 * the sample is a check, not a measurement. `clear` when the request has ended.
 */
export function deadlineSignal(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const ac = new AbortController();
  const dueMs = performance.now() + timeoutMs;
  let pending: NodeJS.Immediate | null = null;
  let extended = false;
  const fire = () => {
    const lateMs = performance.now() - dueMs;
    if (!extended && lateMs > STALL_MS) {
      extended = true;
      timer = setTimeout(fire, Math.min(lateMs, timeoutMs));
      return;
    }
    pending = setImmediate(() => ac.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')));
  };
  let timer = setTimeout(fire, timeoutMs);
  return {
    signal: ac.signal,
    clear: () => {
      clearTimeout(timer);
      if (pending !== null) clearImmediate(pending);
    },
  };
}
