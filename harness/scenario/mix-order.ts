/**
 * Which mix entry an arrival runs: a pure function of the global arrival number, so both engines
 * and every worker stripe send the same mix. One period of a weighted round robin over the
 * weights made whole is laid out once; arrival n runs entry table[(n - 1) mod W]. The order is
 * Tijdeman's (the "chairman assignment" of 1980): after any n arrivals from the first, each entry's
 * count is within 1 - 1/(2k - 2) of n x its share, k entries; nginx's SWRR, used before, passed 1
 * on some weights (1.2 at arrival 567 of 3/1/125/41/189/3/1). Decision 028.
 * No Node API: the k6 bundle uses this file too.
 */

/** Longest period laid out (entries in the table): weights need at most 3 decimals and sum to at most this once whole. */
export const MAX_PERIOD = 1_000_000;

export interface MixOrder {
  /** Entry index of each arrival of one period (a byte each up to 256 entries). */
  table: Uint8Array | Uint32Array;
  /** The weights made whole (their sum is table.length). */
  whole: number[];
}

/**
 * Each arrival's rank among its own entry's in one period (0-based): how many arrivals of the same
 * entry come before it in the period. Laid out on demand (entrySeqOf), for sequential data.
 */
export function ranksOf(order: MixOrder): Uint32Array {
  const seen = new Uint32Array(Math.max(1, order.whole.length));
  const rank = new Uint32Array(order.table.length);
  for (let i = 0; i < order.table.length; i++) rank[i] = seen[order.table[i]]++;
  return rank;
}

/**
 * Global arrival `seq`'s number (1-based) among its own entry's arrivals, a pure function of seq
 * (both engines, every worker stripe): what ctx.row walks a sequential source by, so that an entry
 * running every P-th arrival reads every row in turn, not the rows congruent to its place in the
 * period (an entry on every 4th arrival read 4 of 16 rows). `rank`: ranksOf(order) (its length the
 * period), or what reads it; `entry`: the entry seq runs (entryOf).
 */
export function entrySeqOf(whole: readonly number[], rank: ArrayLike<number>, entry: number, seq: number): number {
  if (whole.length <= 1) return seq;
  return groupSeqOf(whole[entry], rank, seq);
}

/**
 * Each arrival's rank among the arrivals of a group of entries in one period (0-based): how many
 * arrivals of the group's entries come before it. `inGroup[e]`: entry e is in the group. With the
 * group's arrivals per period (`perPeriod`), what groupSeqOf numbers a unique source's readers by.
 */
export function groupRanksOf(order: MixOrder, inGroup: readonly boolean[]): { rank: Uint32Array; perPeriod: number } {
  const rank = new Uint32Array(order.table.length);
  let seen = 0;
  for (let i = 0; i < order.table.length; i++) {
    rank[i] = seen;
    if (inGroup[order.table[i]]) seen++;
  }
  return { rank, perPeriod: seen };
}

/**
 * Global arrival `seq`'s number (1-based) among the arrivals of a group whose entries run
 * `perPeriod` arrivals of every period, `rank` its ranks in the period (ranksOf for one entry,
 * groupRanksOf for several); meaningful for an arrival whose entry is in the group.
 */
export function groupSeqOf(perPeriod: number, rank: ArrayLike<number>, seq: number): number {
  const period = rank.length;
  const i = (((seq - 1) % period) + period) % period;
  return Math.floor((seq - 1) / period) * perPeriod + rank[i] + 1;
}

/** How many of arrivals 1..n run an entry of the group (groupRanksOf's): the rows a unique source read by it needs. */
export function groupCountOf(order: MixOrder, inGroup: readonly boolean[], n: number): number {
  if (n <= 0) return 0;
  const { rank, perPeriod } = groupRanksOf(order, inGroup);
  const period = rank.length;
  const i = n % period;
  const partial = i === 0 ? 0 : rank[i - 1] + (inGroup[order.table[i - 1]] ? 1 : 0);
  return Math.floor(n / period) * perPeriod + partial;
}

/** Greatest common divisor of two whole numbers. */
export function gcd(a: number, b: number): number {
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
  // a weight under the tolerance at scale 1 (1e-10) passes as whole and rounds to 0: never sent
  const lost = weights.find((_, i) => ints[i] === 0);
  if (lost !== undefined) return `weight ${lost} is under 0.001, the finest share 3 decimals give`;
  const g = ints.reduce(gcd);
  const whole = ints.map((w) => w / g);
  const sum = whole.reduce((a, b) => a + b, 0);
  if (sum > MAX_PERIOD) return `the weights made whole sum to ${sum}, over ${MAX_PERIOD}`;
  return whole;
}

/**
 * One period of Tijdeman's order, in whole numbers (w_i of total W, k entries, d = 2k - 2): at
 * arrival n, an entry is released once n x w_i - x_i x W >= W / d (x_i: its arrivals so far), and
 * of those the one whose deadline (x_i + 1 - 1/d) / share comes first is taken (first on ties).
 * Some entry is always released, and each count stays within 1 - 1/d of its share; after W
 * arrivals every entry has exactly w_i, so the period repeats.
 */
export function mixOrder(weights: readonly number[]): MixOrder {
  const whole = wholeWeights(weights);
  if (typeof whole === 'string') throw new Error(whole);
  const total = whole.reduce((a, b) => a + b, 0);
  const k = whole.length;
  const table = k <= 256 ? new Uint8Array(total) : new Uint32Array(total);
  if (k === 1) return { table, whole };
  const d = 2 * k - 2;
  const taken = new Array<number>(k).fill(0);
  for (let n = 1; n <= total; n++) {
    let best = -1;
    for (let i = 0; i < k; i++) {
      if (d * (n * whole[i] - taken[i] * total) < total) continue;
      // deadlines (x_i + 1 - 1/d) / w_i compared as ((x_i + 1) d - 1) / w_i, crossed (under 2^53: W <= 10^6)
      if (best < 0 || ((taken[i] + 1) * d - 1) * whole[best] < ((taken[best] + 1) * d - 1) * whole[i]) best = i;
    }
    if (best < 0) throw new Error(`mix order: no entry released at arrival ${n} of weights ${whole.join('/')}`);
    taken[best]++;
    table[n - 1] = best;
  }
  return { table, whole };
}

/** The entry global arrival `seq` (1-based) runs. */
export function entryOf(order: MixOrder, seq: number): number {
  const t = order.table;
  return t[(((seq - 1) % t.length) + t.length) % t.length];
}

/**
 * How many arrivals' entries one number holds, k entries: the most digits of base k a double holds
 * exactly (k^n <= 2^53): 7 for 100 entries, 33 for 3.
 */
export function entriesPerNumber(k: number): number {
  const base = Math.max(2, k);
  let n = 0;
  for (let m = base; m <= 2 ** 53; m *= base) n++;
  return n;
}

/**
 * One period packed into numbers, entriesPerNumber(k) arrivals each (arrival j of a number is its
 * base-k digit j): what k6 shares between its VUs. A SharedArray keeps each element as JSON and
 * parses and deep-freezes the element on every read, which walks a string's every character (a
 * string of 4,096 arrivals cost each read 4,096 property reads on k6 before v2.2), a number's none.
 * A period of 10^6 over 100 entries is 142,858 numbers, laid out once per k6 process.
 */
export function packedOrder(order: MixOrder): number[] {
  const k = Math.max(2, order.whole.length);
  const per = entriesPerNumber(k);
  const out: number[] = [];
  for (let at = 0; at < order.table.length; at += per) {
    let v = 0;
    for (let j = Math.min(per, order.table.length - at) - 1; j >= 0; j--) v = v * k + order.table[at + j];
    out.push(v);
  }
  return out;
}

/**
 * entryOf over packedOrder's numbers of a period of `period` arrivals over k entries, read through
 * `packed` (an array whose every read may parse, as a SharedArray's does): the number read last is
 * kept, so arrivals next to each other read it once.
 */
export function packedEntryOf(packed: ArrayLike<number>, k: number, period: number): (seq: number) => number {
  const base = Math.max(2, k);
  const per = entriesPerNumber(base);
  const powers = Array.from({ length: per }, (_, j) => base ** j);
  let at = -1;
  let value = 0;
  return (seq) => {
    const i = (((seq - 1) % period) + period) % period;
    const n = Math.floor(i / per);
    if (n !== at) {
      value = packed[n];
      at = n;
    }
    return Math.floor(value / powers[i - n * per]) % base;
  };
}
