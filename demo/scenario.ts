/**
 * The demo target's scenario, and the example of a portable scenario: each iteration creates an
 * order with an id no earlier request (of this run or any other) used, for one of 100,000
 * accounts, signed with HMAC-SHA256 over the exact body bytes sent.
 */
import { defineScenario } from 'plateau';

export default defineScenario({
  name: 'create order',
  ids: { prefix: 'ord-', maxLength: 50 },
  secrets: ['PLATEAU_DEMO_HMAC_KEY'],
  request(ctx) {
    const body = JSON.stringify({ id: ctx.uniqueId(), accountId: ctx.pick(100_000) + 1, amountCents: 100 });
    return {
      method: 'POST',
      url: '/orders',
      headers: { 'content-type': 'application/json', 'x-signature': ctx.hmacSha256('PLATEAU_DEMO_HMAC_KEY', body) },
      body,
    };
  },
  check: (res) => res.status === 201 || `expected 201 Created, got ${res.status}`,
});
