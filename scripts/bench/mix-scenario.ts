// The bench's mix (issue 27, "Speed"): three entries against nginx (scripts/bench/nginx.ts answers
// every path and method with 200 "ok\n"), one of them a two-request transaction with no think
// time. Per 100 arrivals: 70 reads, 20 writes, 10 transactions, so 110 requests. The reads check
// the status, the writes check the body (which keeps it), the transaction checks its first answer
// and sends the second only when it passed, as a user's create-then-confirm does.
import { defineScenario } from 'plateau';

export default defineScenario({
  name: 'bench mix',
  mix: {
    read: {
      weight: 70,
      request: (ctx) => ({ url: `/items/r${ctx.pick(1000)}` }),
      check: (res) => res.status === 200 || `expected 200, got ${res.status}`,
    },
    write: {
      weight: 20,
      request: (ctx) => ({
        method: 'POST',
        url: '/items',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: ctx.uniqueId(), qty: 1 }),
      }),
      check: (res) => res.body === 'ok\n' || `expected the body "ok", got ${JSON.stringify(res.body.slice(0, 40))}`,
    },
    checkout: {
      weight: 10,
      async run(ctx, http) {
        const id = ctx.uniqueId();
        const made = await http.send(
          'checkout: create',
          { method: 'POST', url: '/carts', headers: { 'content-type': 'application/json' }, body: `{"id":"${id}"}` },
          (r) => r.status === 200 || `expected 200, got ${r.status}`,
        );
        if (!made.ok) return;
        await http.send('checkout: confirm', { method: 'POST', url: `/carts/${id}/confirm` });
      },
    },
  },
});
