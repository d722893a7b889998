/**
 * The order routes. POST /orders: HMAC check over the exact body bytes, validation, then (holding
 * a pool slot for the write hold plus the SQL) idempotency lookup, id length check, optimistic
 * account update, and the order with its idempotency row. GET /orders/{id} (the read hold) and
 * POST /orders/{id}/confirm (the confirm hold) hold a slot of the same pool (slot.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DemoDb, OrderView } from './db.ts';
import type { DemoHolds } from './capacity.ts';
import { withSlot, type OrderAnswer, type SlotContext } from './slot.ts';

export type { OrderAnswer } from './slot.ts';

export interface Order {
  id: string;
  accountId: number;
  amountCents: number;
}

export interface OrderCounters {
  writes: number;
  idempotentHits: number;
  reads: number;
  confirms: number;
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

export interface OrderContext extends SlotContext {
  db: DemoDb;
  /** Each route's base hold of its slot, ms. */
  holds: DemoHolds;
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
  return withSlot(ctx, ctx.holds.writeMs, () => runStatements(ctx, order));
}

/** GET /orders/{id}: 200 with the order, 404 when there is none. */
export function handleGetOrder(ctx: OrderContext, id: string): Promise<OrderAnswer> {
  return withSlot(ctx, ctx.holds.readMs, () => {
    const found = ctx.db.findOrder(id);
    if (!found) return notFound(id);
    ctx.counters.reads++;
    return { status: 200, body: found };
  });
}

/** POST /orders/{id}/confirm: 200 with the confirmed order, 404 when there is none, 409 when already confirmed. */
export function handleConfirm(ctx: OrderContext, id: string): Promise<OrderAnswer> {
  return withSlot(ctx, ctx.holds.confirmMs, () => {
    const result = ctx.db.confirmOrder(id);
    if (result === 'absent') return notFound(id);
    if (result === 'already confirmed') return { status: 409, body: { error: `order ${id} is already confirmed` } };
    ctx.counters.confirms++;
    return { status: 200, body: result };
  });
}

function notFound(id: string): OrderAnswer {
  return { status: 404, body: { error: `order ${id} not found` } };
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
  const view: OrderView = { ...order, status: 'created', version: account.version + 1 };
  const response = JSON.stringify(view);
  let applied: boolean;
  try {
    applied = ctx.db.applyOrder(order, account, response);
  } catch (err) {
    const code = (err as { code?: string }).code;
    // A seeded order's id, never written through POST (so not in the idempotency table).
    if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return { status: 409, body: { error: `order ${order.id} exists` } };
    // The column's own CHECK(length(id) <= N), should the configured limit ever exceed it.
    if (code !== 'SQLITE_CONSTRAINT_CHECK') throw err;
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
