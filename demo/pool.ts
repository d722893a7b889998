/**
 * A bounded connection pool, HikariCP-style: `slots` permits, a FIFO wait queue, and an
 * optional acquire timeout. Without acquireTimeoutMs the queue is unbounded (thread-pool style);
 * with it, a waiter that is not served in time is rejected with AcquireTimeoutError (fail fast).
 * resize() changes the slots live (the demo's replicas each bring their own pool).
 */
import { performance } from 'node:perf_hooks';

export class AcquireTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Connection is not available, request timed out after ${timeoutMs}ms.`);
    this.name = 'AcquireTimeoutError';
  }
}

export class PoolClosedError extends Error {
  constructor() {
    super('pool is closed');
    this.name = 'PoolClosedError';
  }
}

export interface PoolOptions {
  slots: number;
  acquireTimeoutMs?: number;
}

export interface Lease {
  /**
   * When the slot became this holder's (performance.now() ms): the moment of the grant, or, for a
   * waiter that was already queued, the moment the previous holder said the slot became free.
   */
  readonly grantedAtMs: number;
  /**
   * Give the slot back (idempotent). `freedAtMs` (default now) is when the work really ended,
   * e.g. a hold's deadline: the event loop may notice a timer late, and crediting the next
   * waiter with that lag keeps the pool's throughput at slots / holdMs under load.
   */
  release(freedAtMs?: number): void;
}

interface Waiter {
  enqueuedAtMs: number;
  grant: (lease: Lease) => void;
  fail: (err: Error) => void;
  timer?: NodeJS.Timeout;
  done: boolean;
}

export class Pool {
  private slotsCount: number;
  readonly acquireTimeoutMs: number | undefined;
  private activeCount = 0;
  private pendingCount = 0;
  private queue: Waiter[] = [];
  private head = 0;
  private closed = false;
  private heldMs = 0;

  constructor(opts: PoolOptions) {
    if (!Number.isInteger(opts.slots) || opts.slots < 1) throw new RangeError('slots must be an integer >= 1');
    if (opts.acquireTimeoutMs !== undefined && !(opts.acquireTimeoutMs >= 0)) {
      throw new RangeError('acquireTimeoutMs must be >= 0');
    }
    this.slotsCount = opts.slots;
    this.acquireTimeoutMs = opts.acquireTimeoutMs;
  }

  /** Pool size now. */
  get slots(): number {
    return this.slotsCount;
  }

  /** Slot-seconds held by leases ended so far: over a window, its rate is the mean number of busy slots. */
  get busySeconds(): number {
    return this.heldMs / 1000;
  }

  /** Slots in use. */
  get active(): number {
    return this.activeCount;
  }

  /** Requests waiting for a slot. */
  get pending(): number {
    return this.pendingCount;
  }

  /** Pool size. */
  get max(): number {
    return this.slots;
  }

  acquire(): Promise<Lease> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    if (this.activeCount < this.slots && this.pendingCount === 0) {
      this.activeCount++;
      return Promise.resolve(this.newLease(performance.now()));
    }
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = { enqueuedAtMs: performance.now(), grant: resolve, fail: reject, done: false };
      const timeoutMs = this.acquireTimeoutMs;
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          if (waiter.done) return;
          waiter.done = true;
          this.pendingCount--;
          reject(new AcquireTimeoutError(timeoutMs));
        }, timeoutMs);
      }
      this.queue.push(waiter);
      this.pendingCount++;
    });
  }

  /**
   * Change the pool size. Growing grants the new slots to the oldest waiters at once; shrinking
   * retires busy slots as their holders release them (active may exceed slots meanwhile).
   */
  resize(slots: number): void {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError('slots must be an integer >= 1');
    this.slotsCount = slots;
    while (this.activeCount < this.slotsCount) {
      const waiter = this.nextWaiter();
      if (!waiter) break;
      this.activeCount++;
      waiter.grant(this.newLease(performance.now()));
    }
  }

  /** Reject every waiter; leases already granted stay valid until released. */
  close(): void {
    this.closed = true;
    for (let w = this.nextWaiter(); w; w = this.nextWaiter()) w.fail(new PoolClosedError());
  }

  private newLease(grantedAtMs: number): Lease {
    let released = false;
    return {
      grantedAtMs,
      release: (freedAtMs?: number) => {
        if (released) return;
        released = true;
        const nowMs = performance.now();
        const freed = Math.min(nowMs, Math.max(grantedAtMs, freedAtMs ?? nowMs));
        this.heldMs += freed - grantedAtMs;
        this.handOff(freed);
      },
    };
  }

  /** A slot came free at freedAtMs: give it to the oldest live waiter, or return it to the pool. */
  private handOff(freedAtMs: number): void {
    if (this.activeCount > this.slotsCount) {
      this.activeCount--; // the pool shrank: retire this slot
      return;
    }
    const waiter = this.nextWaiter();
    if (waiter) waiter.grant(this.newLease(Math.max(waiter.enqueuedAtMs, freedAtMs)));
    else this.activeCount--;
  }

  private nextWaiter(): Waiter | undefined {
    while (this.head < this.queue.length) {
      const w = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as Waiter;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (w.done) continue;
      w.done = true;
      this.pendingCount--;
      if (w.timer) clearTimeout(w.timer);
      return w;
    }
    return undefined;
  }
}
