/**
 * POST /orders: HMAC check over the exact body bytes, validation, then (holding a pool slot for
 * holdMs of simulated work plus the SQL) idempotency lookup, id length check, optimistic account
 * update and idempotency insert.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DemoDb } from './db.ts';
import { sleepUntil } from './hold.ts';
import { AcquireTimeoutError, type Pool } from './pool.ts';
import { progressiveHold, type BusyAverage } from './coherency.ts';

export interface Order {
  id: string;
  accountId: number;
  amountCents: number;
}

/** The HTTP answer plus the exception label Spring would put on the metric. */
export interface OrderAnswer {
  status: number;
  body: unknown;
  exception?: string;
}

export interface OrderCounters {
  writes: number;
  idempotentHits: number;
}

export function signBody(body: Buffer | string, hmacKey: string): string {
  return createHmac('sha256', hmacKey).update(body).digest('hex');
}

export function signatureOk(body: Buffer, header: string | string[] | undefined, hmacKey: string): boolean {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{64}$/.test(header.trim())) return false;
  const given = Buffer.from(header.trim().toLowerCase(), 'hex');
  const expected = createHmac('sha256', hmacKey).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Parse and validate; returns an error message for a malformed body. */
export function parseOrder(body: Buffer): Order | string {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return 'body is not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body must be a JSON object';
  const o = value as Record<string, unknown>;
  if (typeof o.id !== 'string' || o.id.length === 0) return 'id must be a non-empty string';
  if (!Number.isSafeInteger(o.accountId)) return 'accountId must be an integer';
  if (!Number.isSafeInteger(o.amountCents)) return 'amountCents must be an integer';
  return { id: o.id, accountId: o.accountId as number, amountCents: o.amountCents as number };
}

export interface OrderContext {
  db: DemoDb;
  pool: Pool;
  holdMs: number;
  /** The hold of a request given the busy slots (see `busy`); default holdMs. */
  holdMsAt?: (busySlots: number) => number;
  /**
   * When set, holdMsAt gets the busy count averaged over its window, re-read as the work goes on
   * (coherency.ts, progressiveHold); else the slots busy at the grant, this request's included.
   */
  busy?: BusyAverage;
  idMaxLength: number;
  hmacKey?: string;
  counters: OrderCounters;
}

export async function handleOrder(
  ctx: OrderContext,
  body: Buffer,
  signature: string | string[] | undefined,
): Promise<OrderAnswer> {
  if (ctx.hmacKey !== undefined && !signatureOk(body, signature, ctx.hmacKey)) {
    return { status: 401, body: { error: 'bad signature' } };
  }
  const order = parseOrder(body);
  if (typeof order === 'string') return { status: 400, body: { error: order } };

  let lease;
  try {
    lease = await ctx.pool.acquire();
  } catch (err) {
    if (err instanceof AcquireTimeoutError) {
      return { status: 503, body: { error: err.message }, exception: 'SQLTransientConnectionException' };
    }
    throw err;
  }
  let freedAtMs: number | undefined;
  try {
    const answer = runStatements(ctx, order);
    const busy = ctx.busy;
    const holdMsAt = ctx.holdMsAt;
    const holdMs = holdMsAt ? holdMsAt(busy ? busy.at(performance.now()) : ctx.pool.active) : ctx.holdMs;
    // The slot's clock: a queued request starts when the previous holder's hold ended, even if
    // the event loop noticed late; credit at most one hold so a stall cannot cause a catch-up burst.
    const startedAtMs = Math.max(lease.grantedAtMs, performance.now() - holdMs);
    if (busy && holdMsAt) {
      // The averaged penalty: the work goes at the pace of the average while it lasts.
      const interval = busy.start(startedAtMs);
      freedAtMs = await progressiveHold(
        startedAtMs,
        ctx.holdMs,
        (nowMs) => holdMsAt(busy.at(nowMs)),
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

/** The serial SQL of one order, run while the slot is held. */
function runStatements(ctx: OrderContext, order: Order): OrderAnswer {
  const cached = ctx.db.findIdempotent(order.id);
  if (cached) {
    ctx.counters.idempotentHits++;
    return { status: 200, body: cached.response };
  }
  if (order.id.length > ctx.idMaxLength) {
    return {
      status: 500,
      body: { error: `value too long for type character varying(${ctx.idMaxLength})` },
      exception: 'DataIntegrityViolationException',
    };
  }
  const account = ctx.db.findAccount(order.accountId);
  if (!account) return { status: 404, body: { error: `account ${order.accountId} not found` } };
  const version = account.version + 1;
  const response = JSON.stringify({ id: order.id, accountId: order.accountId, version });
  let applied: boolean;
  try {
    applied = ctx.db.applyOrder(order, account, response);
  } catch (err) {
    // The column's own CHECK(length(id) <= N), should the configured limit ever exceed it.
    if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_CHECK') throw err;
    return {
      status: 500,
      body: { error: `value too long for type character varying(${ctx.db.idMaxLength})` },
      exception: 'DataIntegrityViolationException',
    };
  }
  if (!applied) {
    return { status: 409, body: { error: 'version conflict' }, exception: 'OptimisticLockingFailureException' };
  }
  ctx.counters.writes++;
  return { status: 201, body: response };
}
