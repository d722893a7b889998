/**
 * Which instance (worker thread) sends which arrival of a leg. Plain striping gives local arrival n
 * to instance (n - 1) mod count. A mix's entries repeat with the period of its order
 * (mix-order.ts), and where that period and the count share a factor, plain striping shows each
 * instance only some places of the period: with 70/25/5 (a period of 20) on two threads every
 * checkout fell on odd arrivals, and one thread's VUs carried every transaction.
 *
 * There the stripes turn: the leg's global arrival numbers are cut into blocks of lcm(period,
 * count), and in block b arrival seq goes to instance (seq - 1 + b) mod count. A block holds every
 * remainder mod count equally often, so each instance still sends a count-th of the arrivals, and
 * over g consecutive blocks (g = gcd(period, count)) each instance sends every place of the period
 * equally often. Which entry an arrival runs stays a function of seq alone (both engines send the
 * same mix); only which thread sends it moves. Pure: no Node API.
 */
import { gcd } from '../scenario/mix-order.ts';

export interface Stripe {
  /** This instance's index among `count`. */
  index: number;
  count: number;
}

/** The length of a turning block, or 0 where plain striping already spreads the period (gcd 1, or one instance). */
export function turnBlock(period: number, count: number): number {
  if (count <= 1 || period <= 1 || gcd(period, count) === 1) return 0;
  return (period / gcd(period, count)) * count;
}

/**
 * The first local arrival number m >= from (seq = seqOffset + m) that `stripe` sends, `block`
 * turnBlock's. Plain striping: from rounded up to its stripe; turning: at most two blocks looked at.
 */
export function firstOfStripe(from: number, seqOffset: number, stripe: Stripe, block: number): number {
  const { index, count } = stripe;
  if (block === 0) return from + mod(index - (from - 1), count);
  let seq = seqOffset + from;
  for (;;) {
    const b = Math.floor((seq - 1) / block);
    const last = (b + 1) * block;
    const at = seq + mod(index - b - (seq - 1), count);
    if (at <= last) return at - seqOffset;
    seq = last + 1;
  }
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}
