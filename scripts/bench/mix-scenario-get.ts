// The bench's mix with every request a GET and no body read (the mix case's `gets` variant, run in
// its rounds beside mix-scenario.ts; `--mix-gets none` leaves it out): the same three entries,
// weights and transaction as mix-scenario.ts, so that beside it the cost of the mix itself (an
// entry per arrival, names, checks of the status, a transaction's two requests in turn) shows apart
// from that of its requests' shape (POST bodies, a check that reads the body).
import { defineScenario } from 'plateau';

export default defineScenario({
  name: 'bench mix, GETs',
  mix: {
    read: {
      weight: 70,
      request: (ctx) => ({ url: `/items/r${ctx.pick(1000)}` }),
      check: (res) => res.status === 200 || `expected 200, got ${res.status}`,
    },
    write: {
      weight: 20,
      request: (ctx) => ({ url: `/items/w${ctx.pick(1000)}` }),
      check: (res) => res.status === 200 || `expected 200, got ${res.status}`,
    },
    checkout: {
      weight: 10,
      async run(ctx, http) {
        const id = ctx.pick(1000);
        const made = await http.send(
          'checkout: create',
          { url: `/carts/c${id}` },
          (r) => r.status === 200 || `expected 200, got ${r.status}`,
        );
        if (!made.ok) return;
        await http.send('checkout: confirm', { url: `/carts/c${id}/confirm` });
      },
    },
  },
});
