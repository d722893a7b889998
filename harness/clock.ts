/**
 * Time as an argument: what reads the time or waits (the engine, the prober, the duration cap,
 * the steps stage) takes a Clock, so the same code runs on the machine's clock or in simulated
 * time against a model target (tests of the stop rule, reruns and interruption that take
 * milliseconds instead of minutes). The real clock is the default everywhere.
 */
import { performance } from 'node:perf_hooks';

/** A pending timer; `unref` lets the process exit while it waits (no effect in simulated time). */
export interface Timer {
  unref(): unknown;
}

export interface Clock {
  /** Milliseconds on a monotonic scale (performance.now() on the real clock). */
  now(): number;
  setTimeout(fn: () => void, delayMs: number): Timer;
  setInterval(fn: () => void, everyMs: number): Timer;
  /** Cancels a timer of either kind; null and an already fired timeout are fine. */
  clear(t: Timer | null): void;
}

/** The machine's clock: performance.now() and Node's timers. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, delayMs) => setTimeout(fn, delayMs),
  setInterval: (fn, everyMs) => setInterval(fn, everyMs),
  clear: (t) => {
    if (t) clearTimeout(t as NodeJS.Timeout);
  },
};

interface SimTimer extends Timer {
  dueMs: number;
  /** Creation order: timers due at the same moment fire in the order they were set, as Node's do. */
  seq: number;
  fn: () => void;
  everyMs: number | null;
  cancelled: boolean;
}

/** Real event-loop turns the simulation waits for work outside simulated time before calling it stuck. */
const IDLE_TURNS_MAX = 200;

/**
 * Simulated time: now() moves only when a timer fires, to that timer's due time. run(work) fires
 * the pending timers in due order, one per turn of the real event loop, so every promise chain
 * a timer starts settles (in no simulated time) before the clock moves on: async code sees time
 * pass exactly as its timers say.
 */
export class SimClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private readonly timers: SimTimer[] = [];

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: () => void, delayMs: number): Timer {
    return this.add(fn, delayMs, null);
  }

  setInterval(fn: () => void, everyMs: number): Timer {
    // a zero period would never let time move
    return this.add(fn, everyMs, Math.max(1, everyMs));
  }

  clear(t: Timer | null): void {
    if (!t) return;
    const s = t as SimTimer;
    s.cancelled = true;
    const i = this.timers.indexOf(s);
    if (i >= 0) this.timers.splice(i, 1);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Runs simulated time until `work` settles and returns its value (or throws its error). Throws
   * when the work still waits with no timer left (it waits on something outside simulated time:
   * real I/O, a real timer) or when simulated time passes `maxMs` (a loop that never ends).
   */
  async run<T>(work: Promise<T>, o: { maxMs?: number } = {}): Promise<T> {
    const limitMs = this.nowMs + (o.maxMs ?? 24 * 3600 * 1000);
    let settled = false;
    work.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    let idle = 0;
    for (;;) {
      await nextTurn();
      if (settled) return work;
      const t = this.timers[0];
      if (!t) {
        // the work may await real I/O (a file written, a socket): give it real turns first
        if (++idle > IDLE_TURNS_MAX)
          throw new Error(
            `simulated clock: the work still waits at ${this.nowMs} ms and no timer is pending: it waits on something outside simulated time (real I/O or a real timer); give that code this clock`,
          );
        continue;
      }
      idle = 0;
      if (t.dueMs > limitMs)
        throw new Error(
          `simulated clock: the work did not settle within ${o.maxMs ?? 24 * 3600 * 1000} ms of simulated time (next timer at ${t.dueMs} ms): a loop that never ends, or raise maxMs`,
        );
      this.fire(t);
    }
  }

  /** Moves simulated time forward by `ms`, firing every timer due on the way (each on its own real turn). */
  async advance(ms: number): Promise<void> {
    const untilMs = this.nowMs + ms;
    for (;;) {
      await nextTurn();
      const t = this.timers[0];
      if (!t || t.dueMs > untilMs) break;
      this.fire(t);
    }
    this.nowMs = untilMs;
    await nextTurn();
  }

  private fire(t: SimTimer): void {
    this.timers.shift();
    this.nowMs = Math.max(this.nowMs, t.dueMs);
    if (t.everyMs !== null) {
      t.dueMs += t.everyMs;
      t.seq = this.seq++;
      this.insert(t);
    }
    t.fn();
  }

  private add(fn: () => void, delayMs: number, everyMs: number | null): Timer {
    // Node clamps a negative, NaN or zero delay to 1 ms; so does this clock, so a timer set from
    // within a timer never fires in the same instant and loops cannot stall time
    const d = Number.isFinite(delayMs) && delayMs >= 1 ? delayMs : 1;
    const t: SimTimer = { dueMs: this.nowMs + d, seq: this.seq++, fn, everyMs, cancelled: false, unref: () => t };
    this.insert(t);
    return t;
  }

  /** Keeps `timers` sorted by (dueMs, seq): few timers are pending at once (a handful per run). */
  private insert(t: SimTimer): void {
    let i = this.timers.length;
    while (
      i > 0 &&
      (this.timers[i - 1].dueMs > t.dueMs || (this.timers[i - 1].dueMs === t.dueMs && this.timers[i - 1].seq > t.seq))
    )
      i--;
    this.timers.splice(i, 0, t);
  }
}

/** One turn of the real event loop: every microtask queued so far (promise continuations) runs first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
