/**
 * The demo target's scenario, and the example of a portable one: a realistic mix of reads, writes
 * and a transaction sharing the demo's pool (its capacity for this mix is what the demo prints at
 * start: demo/capacity.ts).
 *
 * - 'read order' (70): GET /orders/{id} of one of the orders the demo seeds (seed-0 ..), so every
 *   read finds its row; the check reads the body.
 * - 'create order' (25): POST /orders with an id no earlier request (of this run or any other)
 *   used, for the next account of accounts.csv, signed with HMAC-SHA256 over the exact body bytes.
 * - 'checkout' (5): a transaction: create an order, think, then confirm that order.
 */
import { defineScenario, type RequestSpec, type ScenarioContext } from 'plateau';
import { CHECKOUT_THINK_MS, DEMO_MIX, SEED_ORDERS, seedOrderId } from './mix.ts';

const KEY_ENV = 'PLATEAU_DEMO_HMAC_KEY';

/** POST /orders of a fresh order for the next account of accounts.csv, signed. */
export function createOrderRequest(ctx: ScenarioContext): RequestSpec {
  const body = JSON.stringify({ id: ctx.uniqueId(), accountId: Number(ctx.row('accounts').id), amountCents: 100 });
  return {
    method: 'POST',
    url: '/orders',
    headers: { 'content-type': 'application/json', 'x-signature': ctx.hmacSha256(KEY_ENV, body) },
    body,
  };
}

export default defineScenario({
  name: 'shop',
  ids: { prefix: 'ord-', maxLength: 50 },
  secrets: [KEY_ENV],
  data: { accounts: { csv: './accounts.csv', order: 'sequential' } },
  mix: {
    'read order': {
      weight: DEMO_MIX['read order'],
      request: (ctx) => ({ url: `/orders/${seedOrderId(ctx.pick(SEED_ORDERS))}` }),
      check: (res) =>
        res.status !== 200
          ? `expected 200, got ${res.status}`
          : typeof res.json().id === 'string' || 'the order has no id in its body',
    },
    'create order': {
      weight: DEMO_MIX['create order'],
      request: createOrderRequest,
      check: (res) =>
        res.status !== 201
          ? `expected 201 Created, got ${res.status}`
          : typeof res.json().id === 'string' || 'the created order has no id in its body',
    },
    checkout: {
      weight: DEMO_MIX.checkout,
      async run(ctx, http) {
        const made = await http.send('checkout: create', createOrderRequest(ctx), (res) =>
          res.status !== 201
            ? `expected 201 Created, got ${res.status}`
            : typeof res.json().id === 'string' || 'the created order has no id in its body',
        );
        if (!made.ok) return;
        await ctx.sleep(CHECKOUT_THINK_MS);
        const id = made.json().id as string;
        await http.send(
          'checkout: confirm',
          { method: 'POST', url: `/orders/${encodeURIComponent(id)}/confirm` },
          (res) =>
            res.status !== 200
              ? `expected 200, got ${res.status}`
              : res.json().status === 'confirmed' || `the answer's status is ${res.json().status}, not confirmed`,
        );
      },
    },
  },
});
