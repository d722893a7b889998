/**
 * Holding a pool slot, as every route that reaches the database does: acquire (or answer 503 when
 * the acquire times out), run the route's SQL, then hold the slot for the route's simulated work
 * (its base hold, stretched by the coherency penalty and the cold start) before freeing it. Reads,
 * writes and confirms share the one pool, so a mix's capacity is the pool over its mean hold
 * (capacity.ts).
 */
import { performance } from 'node:perf_hooks';
import { progressiveHold, type BusyAverage } from './coherency.ts';
import { sleepUntil } from './hold.ts';
import { AcquireTimeoutError, type Pool } from './pool.ts';

/** The HTTP answer plus the exception label Spring would put on the metric. */
export interface OrderAnswer {
  status: number;
  body: unknown;
  exception?: string;
}

export interface SlotContext {
  pool: Pool;
  /** The hold of a request of base hold baseMs given the busy slots (see `busy`); default baseMs. */
  holdMsAt?: (baseMs: number, busySlots: number) => number;
  /**
   * When set, holdMsAt gets the busy count averaged over its window, re-read as the work goes on
   * (coherency.ts, progressiveHold); else the slots busy at the grant, this request's included.
   */
  busy?: BusyAverage;
}

/** The answer of a request whose wait for a slot timed out (fail-fast pool). */
export function acquireTimeoutAnswer(err: AcquireTimeoutError): OrderAnswer {
  return { status: 503, body: { error: err.message }, exception: 'SQLTransientConnectionException' };
}

/** Run `work` holding a slot for baseMs of simulated work (see the header); its answer is the route's. */
export async function withSlot(ctx: SlotContext, baseMs: number, work: () => OrderAnswer): Promise<OrderAnswer> {
  let lease;
  try {
    lease = await ctx.pool.acquire();
  } catch (err) {
    if (err instanceof AcquireTimeoutError) return acquireTimeoutAnswer(err);
    throw err;
  }
  let freedAtMs: number | undefined;
  try {
    const answer = work();
    const busy = ctx.busy;
    const holdMsAt = ctx.holdMsAt;
    const holdMs = holdMsAt ? holdMsAt(baseMs, busy ? busy.at(performance.now()) : ctx.pool.active) : baseMs;
    // The slot's clock: a queued request starts when the previous holder's hold ended, even if
    // the event loop noticed late; credit at most one hold so a stall cannot cause a catch-up burst.
    const startedAtMs = Math.max(lease.grantedAtMs, performance.now() - holdMs);
    if (busy && holdMsAt) {
      // The averaged penalty: the work goes at the pace of the average while it lasts.
      const interval = busy.start(startedAtMs);
      freedAtMs = await progressiveHold(
        startedAtMs,
        baseMs,
        (nowMs) => holdMsAt(baseMs, busy.at(nowMs)),
        sleepAndRead,
        busy.windowMs / 10,
      );
      interval.endMs = freedAtMs;
    } else {
      const deadlineMs = startedAtMs + holdMs;
      await sleepUntil(deadlineMs);
      freedAtMs = deadlineMs;
    }
    return answer;
  } finally {
    lease.release(freedAtMs);
  }
}

async function sleepAndRead(untilMs: number): Promise<number> {
  await sleepUntil(untilMs);
  return performance.now();
}
