/**
 * The demo's traffic, as facts both sides share: the scenario (demo/scenario.ts) sends this mix,
 * and the server states its capacity for it (capacity.ts) and seeds the orders it reads. Plain
 * constants, no imports: the scenario's bundle (native and k6) compiles this file in.
 */

/** Entry names and weights of demo/scenario.ts's mix, in its order. */
export const DEMO_MIX = { 'read order': 70, 'create order': 25, checkout: 5 } as const;

/** Orders the demo seeds at start (and restores on reset), `seed-0` .. `seed-<N-1>`: what 'read order' reads. */
export const SEED_ORDERS = 10_000;

/** The ids of seeded orders: SEED_PREFIX + k. */
export const SEED_PREFIX = 'seed-';

/** The id of seeded order k, 0 <= k < SEED_ORDERS. */
export function seedOrderId(k: number): string {
  return `${SEED_PREFIX}${k}`;
}

/** The think time of 'checkout' between its create and its confirm, ms (holds the VU, not a pool slot). */
export const CHECKOUT_THINK_MS = 20;
