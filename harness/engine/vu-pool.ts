/**
 * Virtual users as k6's arrival-rate executors have them: `preAllocated` exist from the start,
 * more are allocated on demand up to `max`, and an arrival that finds none free is not delayed:
 * the caller drops it and counts it. The pool outlives one engine run, so warmup's open
 * connections serve the steps.
 */
import { VuClient } from './undici-client.ts';
import type { HttpOptions, VuConnection } from './vu-connection.ts';
import { SocketVu } from './socket-client.ts';
import { DeadlineSweep } from './deadline.ts';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * Event-loop utilisation of the thread, over at least the last BUSY_WINDOW_MS, from which it is
 * saturated: a VU pool over TLS then does not grow (docs/decisions/015).
 */
export const GROW_BUSY_MAX = 0.8;
const BUSY_WINDOW_MS = 50;

/** Connections ready for the VUs after preconnect(), and connects that failed. */
export interface Preconnected {
  ready: number;
  failed: number;
}

export class VuPool {
  private readonly free: VuConnection[] = [];
  private readonly all: VuConnection[] = [];
  /** http.timeoutMs as a total deadline: one timer for all VUs, none per request. */
  private readonly sweep = new DeadlineSweep(this.all);
  active = 0;
  /**
   * Why the last acquire() that returned null did: every VU was busy and the pool was at max, or
   * it was under max but its thread was saturated, over TLS (more VUs would not have helped).
   */
  refused: 'max' | 'busy' = 'max';
  /** New VUs cost a TLS handshake each. */
  private readonly tls: boolean;
  /** The thread's event-loop utilisation when saturation was last judged, and that verdict. */
  private eluMark: EventLoopUtilization = performance.eventLoopUtilization();
  private saturated = false;

  constructor(
    private readonly origin: string,
    private readonly http: HttpOptions,
    preAllocated: number,
    public max: number,
  ) {
    this.tls = new URL(origin).protocol === 'https:';
    for (let i = 0; i < preAllocated; i++) this.free.push(this.create());
  }

  get allocated(): number {
    return this.all.length;
  }

  /**
   * A free VU, a newly allocated one while under max, or null: the arrival must be dropped. Over
   * TLS a thread that was just saturated gets no new VU: its handshake (2 ms of CPU) would only
   * saturate it further, and such a pool runs away to its maximum (docs/decisions/015).
   */
  acquire(): VuConnection | null {
    let vu = this.free.pop();
    if (vu === undefined) {
      if (this.all.length >= this.max) {
        this.refused = 'max';
        return null;
      }
      if (this.tls && this.threadSaturated()) {
        this.refused = 'busy';
        return null;
      }
      vu = this.create();
    }
    this.active++;
    return vu;
  }

  release(vu: VuConnection): void {
    this.active--;
    this.free.push(vu);
  }

  /** Allocates VUs until there are `n` (at most max): a worker whose stripe grew gets its share. */
  reserve(n: number): void {
    while (this.all.length < Math.min(n, this.max)) this.free.push(this.create());
  }

  /** Opens a connection for every allocated VU that has none (before the first step). */
  async preconnect(): Promise<Preconnected> {
    const ok = await Promise.all(this.all.map((vu) => vu.preconnect()));
    const opened = ok.filter(Boolean).length;
    return { ready: opened, failed: ok.length - opened };
  }

  /**
   * Judged only when a pool over TLS is about to grow, over the time since the last judgement once
   * that is BUSY_WINDOW_MS or more (the first after a quiet spell averages over the spell, so a
   * storm is stopped from its second window on, as a timer every 50 ms would).
   */
  private threadSaturated(): boolean {
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, this.eluMark);
    if (d.idle + d.active < BUSY_WINDOW_MS) return this.saturated;
    this.eluMark = now;
    this.saturated = d.utilization >= GROW_BUSY_MAX;
    return this.saturated;
  }

  private create(): VuConnection {
    const vu =
      this.http.client === 'undici' ? new VuClient(this.origin, this.http) : new SocketVu(this.origin, this.http);
    this.all.push(vu);
    return vu;
  }

  /**
   * Aborts every request whose deadline is at or before nowMs, as the sweep would: the graceful
   * stop's end calls it with the time its timer fired, so that after a stall of this thread the
   * timeouts due by then are counted before the engine stops counting.
   */
  expireDue(nowMs?: number): void {
    this.sweep.expire(nowMs);
  }

  async close(): Promise<void> {
    this.sweep.stop();
    await Promise.all(this.all.map((vu) => vu.close()));
  }
}
