/**
 * Which mix entry an arrival runs: a pure function of the global arrival number, so both engines
 * and every worker stripe send the same mix. One period of smooth weighted round robin (nginx's
 * SWRR) over the weights made whole is laid out once; arrival n runs entry table[(n - 1) mod W].
 * No Node API: the k6 bundle uses this file too.
 */

/** Longest period laid out (entries in the table): weights need at most 3 decimals and sum to at most this once whole. */
export const MAX_PERIOD = 1_000_000;

export interface MixOrder {
  /** Entry index of each arrival of one period. */
  table: Uint32Array;
  /** The weights made whole (their sum is table.length). */
  whole: number[];
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The weights as the smallest whole numbers in the same ratio (3 decimals kept), or a reason they cannot be. */
export function wholeWeights(weights: readonly number[]): number[] | string {
  if (weights.length === 0) return 'the mix has no entries';
  for (const w of weights) {
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) return `weight ${String(w)} is not a positive number`;
  }
  let scale = 1;
  while (scale <= 1000 && !weights.every((w) => Math.abs(w * scale - Math.round(w * scale)) < 1e-9)) scale *= 10;
  if (scale > 1000) return 'a weight has more than 3 decimals';
  const ints = weights.map((w) => Math.round(w * scale));
  const g = ints.reduce(gcd);
  const whole = ints.map((w) => w / g);
  const sum = whole.reduce((a, b) => a + b, 0);
  if (sum > MAX_PERIOD) return `the weights made whole sum to ${sum}, over ${MAX_PERIOD}`;
  return whole;
}

/** One SWRR period: each pick adds every weight to its current, takes the largest (first on ties), subtracts the total. */
export function mixOrder(weights: readonly number[]): MixOrder {
  const whole = wholeWeights(weights);
  if (typeof whole === 'string') throw new Error(whole);
  const total = whole.reduce((a, b) => a + b, 0);
  const current = new Array<number>(whole.length).fill(0);
  const table = new Uint32Array(total);
  for (let k = 0; k < total; k++) {
    let best = 0;
    for (let i = 0; i < whole.length; i++) {
      current[i] += whole[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    table[k] = best;
  }
  return { table, whole };
}

/** The entry global arrival `seq` (1-based) runs. */
export function entryOf(order: MixOrder, seq: number): number {
  const t = order.table;
  return t[(((seq - 1) % t.length) + t.length) % t.length];
}
