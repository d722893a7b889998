/**
 * Execution segments (k6's `--execution-segment 1/4:1/2`): this instance runs a stripe of the
 * global arrival sequence, so its share of every rate is the segment's length. The live stop rule
 * of one instance judges its share; `plateau report --merge` judges the sum (merged rates add up
 * to the whole plan when the segments cover (0, 1]).
 */
import type { Plan } from './plan.ts';
import type { VuSizing } from './types.ts';

/**
 * A segment the user wrote that k6 would not read the same way: `message` says what, `hint` the
 * fix. Pure code throws it; the harness (harness/k6/engine/segment.ts) turns it into its usage error.
 */
export class SegmentError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'SegmentError';
  }
}

/** The parts of the config the segment arithmetic reads (the harness's config has them all). */
export interface SegmentConfig {
  k6: { executionSegment?: string; executionSegmentSequence?: string };
  limits: { maxInFlight: number };
}

/** The finest split plateau rounds maxVUs to; bounds finer than this are refused (segmentLcd). */
const MAX_LCD = 1000;

/**
 * A bound as the exact fraction k6 reads it (its stringToRat): a whole-number percentage ("25%";
 * k6 reads the number as an integer, so "12.5%" fails there), a fraction of decimal integers
 * ("1/3"; Go reads a leading 0 there as octal, so "010/100" is refused rather than misread) or a
 * decimal with an optional exponent ("0.125", "1e-1"). k6 trims nothing, so neither does this.
 * Go's rarer spellings (hex, underscores) are refused too. [n, d] in lowest terms.
 */
function exact(t: string): [bigint, bigint] {
  let n: bigint;
  let d: bigint;
  let m: RegExpExecArray | null;
  if ((m = /^\+?(\d+)%$/.exec(t))) [n, d] = [BigInt(m[1]!), 100n];
  else if ((m = /^\+?(0|[1-9]\d*)\/([1-9]\d*)$/.exec(t))) [n, d] = [BigInt(m[1]!), BigInt(m[2]!)];
  else if ((m = /^\+?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/.exec(t)) && (m[1] || m[2])) {
    const frac = m[2] ?? '';
    const exp = Number(m[3] ?? 0) - frac.length;
    [n, d] = [
      BigInt(`${m[1] || '0'}${frac}`) * (exp > 0 ? 10n ** BigInt(exp) : 1n),
      exp < 0 ? 10n ** BigInt(-exp) : 1n,
    ];
  } else {
    throw new SegmentError(
      `execution segment bound "${t}" is not a fraction plateau reads`,
      'write it as 1/4, 25% (a whole number of percent) or 0.25, with no spaces and no leading zeros in a fraction (k6 reads these the same way)',
    );
  }
  if (n > d)
    throw new SegmentError(
      `execution segment bound "${t}" is not a fraction in [0, 1]`,
      'write it as k6 does: 1/4:1/2, 25%:50% or 0.25:0.5',
    );
  const g = gcd(n, d);
  return [n / g, d / g];
}

/** One bound as a number: "1/4", "25%", "0.25" -> 0.25. */
function bound(text: string): number {
  const [n, d] = exact(text);
  return Number(n) / Number(d);
}

/** "from:to" -> [from, to]; a bare "to" means 0:to. k6 splits at the first colon only, so a second is refused. */
function bounds(segment: string): [string, string] {
  const parts = segment.split(':');
  if (parts.length > 2)
    throw new SegmentError(
      `execution segment "${segment}" has more than two bounds`,
      'write one segment as from:to, e.g. 1/3:2/3, and the whole split in the segment sequence (0,1/3,2/3,1)',
    );
  return parts.length === 2 ? [parts[0]!, parts[1]!] : ['0', parts[0]!];
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a || 1n;
}

/**
 * The least common denominator of the segment lengths of the sequence k6 fills in for this
 * instance (ExecutionSegmentSequence.LCD: the bounds of --execution-segment-sequence, or 0, the
 * segment's bounds and 1): 3 for thirds, 4 for 0:1/4 with 1/4:1/2. 1 without a segment.
 */
export function segmentLcd(segment: string | undefined, sequence?: string): number {
  if (!segment) return 1;
  const texts = sequence ? sequence.split(',') : bounds(segment);
  const all = [[0n, 1n], ...texts.map(exact), [1n, 1n]] as [bigint, bigint][];
  const sorted = all.sort((a, b) => (a[0] * b[1] < b[0] * a[1] ? -1 : a[0] * b[1] > b[0] * a[1] ? 1 : 0));
  let lcd = 1n;
  for (let i = 1; i < sorted.length; i++) {
    const [an, ad] = sorted[i - 1]!;
    const [bn, bd] = sorted[i]!;
    const num = bn * ad - an * bd;
    if (num === 0n) continue;
    const den = (ad * bd) / gcd(num, ad * bd);
    lcd = (lcd * den) / gcd(lcd, den);
  }
  if (lcd > BigInt(MAX_LCD)) {
    throw new SegmentError(
      `execution segment ${segment}${sequence ? ` in ${sequence}` : ''} splits the arrivals into ${lcd < 10n ** 12n ? lcd : 'more than 10^12'} parts: k6 re-splits them by maxVUs unless maxVUs is a multiple of that`,
      'write the bounds as simple fractions (1/3 rather than 0.333, at most 1000 parts)',
    );
  }
  return Number(lcd);
}

/**
 * maxVUs rounded up to a multiple of the segment sequence's LCD. k6 re-splits an arrival-rate
 * scenario's segment by maxVUs (its Init calls GetNewExecutionTupleFromValue(maxVUs)): unless
 * maxVUs is a multiple of the LCD, an instance runs its share of maxVUs' split rather than its
 * segment's length (a third with maxVUs 10: 0.4 or 0.3 of the rate), while plateau judges it at
 * exactly its length.
 */
export function vusForSegment(
  vus: VuSizing,
  segment: string | undefined,
  sequence?: string,
  maxBound = Infinity,
): VuSizing {
  const lcd = segmentLcd(segment, sequence);
  const up = Math.ceil(vus.maxVUs / lcd) * lcd;
  if (up === vus.maxVUs) return vus;
  if (up <= maxBound)
    return {
      ...vus,
      maxVUs: up,
      reason: `${vus.reason}; maxVUs ${vus.maxVUs} rounded up to ${up}, a multiple of ${lcd}, so that k6 gives this execution segment exactly its share`,
    };
  const down = Math.floor(vus.maxVUs / lcd) * lcd;
  if (down === 0) {
    throw new SegmentError(
      `execution segment ${segment} needs maxVUs a multiple of ${lcd}, more than the ${maxBound} allowed`,
      `raise limits.maxInFlight to at least ${lcd}, or use a coarser segment sequence`,
    );
  }
  return {
    preAllocatedVUs: Math.min(vus.preAllocatedVUs, down),
    maxVUs: down,
    reason: `${vus.reason}; maxVUs ${vus.maxVUs} rounded down to ${down}, a multiple of ${lcd} within the bound ${maxBound}, so that k6 gives this execution segment exactly its share`,
  };
}

/**
 * The plan one k6 instance runs: with an execution segment, every rate scaled to the segment's
 * share and maxVUs a multiple of the sequence's LCD, within limits.maxInFlight; without one, the
 * plan as built. (Other engines run the plan as built.)
 */
export function planForSegment(plan: Plan, config: SegmentConfig): Plan {
  if (!config.k6.executionSegment) return plan;
  return { ...planShare(plan, config.k6.executionSegment), vus: k6Vus(plan.vus, config) };
}

/** vusForSegment with this config's segment and sequence, within limits.maxInFlight (one request in flight per VU). */
export function k6Vus(vus: VuSizing, config: SegmentConfig): VuSizing {
  return vusForSegment(vus, config.k6.executionSegment, config.k6.executionSegmentSequence, config.limits.maxInFlight);
}

/**
 * The largest maxVUs a k6 rerun may raise to: `b` (verdicts.maxVUsBound within
 * limits.maxInFlight); under an execution segment, the largest multiple of the sequence's LCD
 * within it, so that what the rerun's note says is what k6 runs.
 */
export function segmentVusBound(b: number, config: SegmentConfig): number {
  if (!config.k6.executionSegment) return b;
  const lcd = segmentLcd(config.k6.executionSegment, config.k6.executionSegmentSequence);
  return b >= lcd ? Math.floor(b / lcd) * lcd : b;
}

/**
 * How many arrival numbers a k6 leg took (the next leg's seqOffset moves past them). Under an
 * execution segment, iterationInTest counts the whole striped sequence: every arrival `scheduled`.
 * Without one, `ended` iterations wrote their samples; those in flight when k6 was stopped (or its
 * graceful stop ran out) had numbers too and wrote none, at most one per VU: counted as `maxVUs`
 * more, within `scheduled`, so no id or unique row is given twice (a gap costs nothing).
 */
export function legSeqsUsed(o: { segmented: boolean; scheduled: number; ended: number; maxVUs: number }): number {
  const scheduled = Math.ceil(o.scheduled);
  return o.segmented ? scheduled : Math.min(scheduled, o.ended + o.maxVUs);
}

/** Length of "from:to" (a bare "to" means 0:to); 1 for none. */
export function segmentLength(segment: string | undefined): number {
  if (!segment) return 1;
  const [a, b] = bounds(segment);
  const from = bound(a);
  const to = bound(b);
  if (!(to > from))
    throw new SegmentError(`execution segment "${segment}" is empty`, 'the end must be after the start, e.g. 0:1/2');
  return to - from;
}

/** The plan as one instance sees it: every step's rate scaled by the segment's length. */
export function planShare(plan: Plan, segment: string | undefined): Plan {
  const share = segmentLength(segment);
  if (share === 1) return plan;
  const steps = plan.steps.map((s) => ({ ...s, ratePerSec: Math.round(s.ratePerSec * share * 1000) / 1000 }));
  return { ...plan, steps, expectedSteadySamples: plan.expectedSteadySamples.map((n) => Math.round(n * share)) };
}
