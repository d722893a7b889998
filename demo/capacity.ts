/**
 * The demo's theoretical capacity for a traffic mix. Each request holds one pool slot for its
 * route's hold (read, write, confirm); an arrival runs one entry of the mix (one request, or a
 * transaction of several), so an arrival holds the pool, on average,
 *
 *   H = sum_i w_i sum_j h_ij / sum_i w_i      (w_i the entry's weight, h_ij its requests' holds)
 *
 * and a pool of `slots` serves at most slots / H arrivals per ms (Little's law with every slot
 * busy): capacity = slots / H x 1000 arrivals/s, and R = sum_i w_i r_i / sum_i w_i requests per
 * arrival (r_i the entry's request count) make it capacity x R req/s. Think time holds the
 * client's VU, never a slot, so it does not count. With the coherency penalty (coherency.ts) every
 * hold is stretched by the same factor of the busy count, so the peak is peakOf(H, model, slots).
 * Pure: no clock, no I/O.
 */
import { NO_PENALTY, peakOf, type CoherencyModel } from './coherency.ts';
import { DEMO_MIX } from './mix.ts';

/** One entry of a mix: its weight and the pool hold of each request it sends, in order. */
export interface MixHoldEntry {
  name: string;
  weight: number;
  holdsMs: number[];
}

export interface MixCapacity {
  /** H: the mean pool hold of one arrival, ms. */
  holdPerArrivalMs: number;
  /** R: the mean number of requests of one arrival. */
  requestsPerArrival: number;
  /** The most arrivals per second the pool serves: slots / H x 1000 (the peak under a penalty). */
  arrivalsPerSec: number;
  /** arrivalsPerSec x R. */
  requestsPerSec: number;
  /** Busy slots at that figure (slots without a penalty). */
  peakConcurrency: number;
}

/** The pool holds of the demo's three routes, ms. */
export interface DemoHolds {
  readMs: number;
  writeMs: number;
  confirmMs: number;
}

function positive(what: string, v: number): void {
  if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${what} must be a finite number > 0, got ${v}`);
}

/** The capacity of `slots` for the mix `entries` (see the header for the formula). */
export function mixCapacity(slots: number, entries: MixHoldEntry[], model: CoherencyModel = NO_PENALTY): MixCapacity {
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be an integer >= 1, got ${slots}`);
  if (entries.length === 0) throw new RangeError('a mix needs at least one entry: give { name, weight, holdsMs }');
  let weights = 0;
  let holdMs = 0;
  let requests = 0;
  for (const e of entries) {
    positive(`the weight of "${e.name}"`, e.weight);
    if (e.holdsMs.length === 0) throw new RangeError(`"${e.name}" sends no request: give it at least one hold`);
    for (const h of e.holdsMs) positive(`a hold of "${e.name}" (ms)`, h);
    weights += e.weight;
    holdMs += e.weight * e.holdsMs.reduce((a, b) => a + b, 0);
    requests += e.weight * e.holdsMs.length;
  }
  const holdPerArrivalMs = holdMs / weights;
  const requestsPerArrival = requests / weights;
  const peak = peakOf(holdPerArrivalMs, model, slots);
  return {
    holdPerArrivalMs,
    requestsPerArrival,
    arrivalsPerSec: peak.perSec,
    requestsPerSec: peak.perSec * requestsPerArrival,
    peakConcurrency: peak.concurrency,
  };
}

/** demo/scenario.ts's mix in holds: a read, a write, and a checkout of a write then a confirm. */
export function demoMixEntries(h: DemoHolds): MixHoldEntry[] {
  return [
    { name: 'read order', weight: DEMO_MIX['read order'], holdsMs: [h.readMs] },
    { name: 'create order', weight: DEMO_MIX['create order'], holdsMs: [h.writeMs] },
    { name: 'checkout', weight: DEMO_MIX.checkout, holdsMs: [h.writeMs, h.confirmMs] },
  ];
}

export function demoMixCapacity(slots: number, h: DemoHolds, model: CoherencyModel = NO_PENALTY): MixCapacity {
  return mixCapacity(slots, demoMixEntries(h), model);
}

const ms = (v: number): string => `${+v.toFixed(2)} ms`;

/**
 * What the demo prints at start, e.g. "demo: pool 4, hold read 2 ms / write 10 ms / confirm 10 ms:
 * its own mix (demo/scenario.ts) 70/25/5 -> theoretical capacity about 816 arrivals/s (857 req/s)".
 */
export function mixCapacityLine(slots: number, h: DemoHolds, c: MixCapacity): string {
  const weights = demoMixEntries(h)
    .map((e) => e.weight)
    .join('/');
  const peak = c.peakConcurrency < slots ? ` at its peak of ${c.peakConcurrency} busy slots` : '';
  return (
    `demo: pool ${slots}, hold read ${ms(h.readMs)} / write ${ms(h.writeMs)} / confirm ${ms(h.confirmMs)}: ` +
    `its own mix (demo/scenario.ts) ${weights} -> theoretical capacity about ${Math.round(c.arrivalsPerSec)} arrivals/s ` +
    `(${Math.round(c.requestsPerSec)} req/s)${peak}`
  );
}
