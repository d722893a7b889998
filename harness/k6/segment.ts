/**
 * Execution segments (k6's `--execution-segment 1/4:1/2`): this instance runs a stripe of the
 * global arrival sequence, so its share of every rate is the segment's length. The live stop rule
 * of one instance judges its share; `plateau report --merge` judges the sum (merged rates add up
 * to the whole plan when the segments cover (0, 1]).
 */
import type { Plan } from '../plan.ts';
import type { VuSizing } from '../../analysis/types.ts';
import { PlateauError, EXIT } from '../errors.ts';

/** The finest split plateau rounds maxVUs to; bounds finer than this are refused (segmentLcd). */
const MAX_LCD = 1000;

/** One bound: "1/4", "25%", "0.25". */
function bound(text: string): number {
  const t = text.trim();
  const v = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : t.includes('/') ? Number(t.split('/')[0]) / Number(t.split('/')[1]) : Number(t);
  if (!Number.isFinite(v) || v < 0 || v > 1) {
    throw new PlateauError(`execution segment bound "${text}" is not a fraction in [0, 1]`, 'write it as k6 does: 1/4:1/2, 25%:50% or 0.25:0.5', 'segment-invalid', EXIT.usage);
  }
  return v;
}

/** A bound as the exact fraction k6 reads (Go's big.Rat): "1/3", "25%", "0.125" -> [n, d] in lowest terms. */
function exact(text: string): [bigint, bigint] {
  bound(text);
  const t = text.trim();
  const decimal = (x: string): [bigint, bigint] => {
    const m = /^(\d*)(?:\.(\d*))?$/.exec(x.trim());
    if (!m || !(m[1] || m[2])) throw new SyntaxError(x);
    return [BigInt(`${m[1] || '0'}${m[2] ?? ''}`), 10n ** BigInt((m[2] ?? '').length)];
  };
  let n: bigint;
  let d: bigint;
  try {
    if (t.endsWith('%')) [n, d] = ((x) => [x[0], x[1] * 100n])(decimal(t.slice(0, -1)));
    else if (t.includes('/')) [n, d] = [decimal(t.split('/')[0]!)[0], decimal(t.split('/')[1]!)[0]];
    else [n, d] = decimal(t);
    if (t.includes('/') && /\./.test(t)) throw new SyntaxError(t);
  } catch {
    throw new PlateauError(`execution segment bound "${text}" is not a fraction k6 reads`, 'write it as k6 does: 1/4, 25% or 0.25', 'segment-invalid', EXIT.usage);
  }
  const g = gcd(n, d);
  return [n / g, d / g];
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
  const texts = sequence ? sequence.split(',') : segment.includes(':') ? segment.split(':') : ['0', segment];
  const bounds = [[0n, 1n], ...texts.map(exact), [1n, 1n]] as [bigint, bigint][];
  const sorted = bounds.sort((a, b) => (a[0] * b[1] < b[0] * a[1] ? -1 : a[0] * b[1] > b[0] * a[1] ? 1 : 0));
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
    throw new PlateauError(`execution segment ${segment}${sequence ? ` in ${sequence}` : ''} splits the arrivals into ${lcd} parts: k6 re-splits them by maxVUs unless maxVUs is a multiple of that`, 'write the bounds as simple fractions (1/3 rather than 0.333, at most 1000 parts)', 'segment-invalid', EXIT.usage);
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
export function vusForSegment(vus: VuSizing, segment: string | undefined, sequence?: string): VuSizing {
  const lcd = segmentLcd(segment, sequence);
  const maxVUs = Math.ceil(vus.maxVUs / lcd) * lcd;
  if (maxVUs === vus.maxVUs) return vus;
  return { ...vus, maxVUs, reason: `${vus.reason}; maxVUs ${vus.maxVUs} rounded up to ${maxVUs}, a multiple of ${lcd}, so that k6 gives this execution segment exactly its share` };
}

/** Length of "from:to" (a bare "to" means 0:to); 1 for none. */
export function segmentLength(segment: string | undefined): number {
  if (!segment) return 1;
  const [a, b] = segment.includes(':') ? segment.split(':') : ['0', segment];
  const from = bound(a);
  const to = bound(b);
  if (!(to > from)) throw new PlateauError(`execution segment "${segment}" is empty`, 'the end must be after the start, e.g. 0:1/2', 'segment-invalid', EXIT.usage);
  return to - from;
}

/** The plan as one instance sees it: every step's rate scaled by the segment's length. */
export function planShare(plan: Plan, segment: string | undefined): Plan {
  const share = segmentLength(segment);
  if (share === 1) return plan;
  const steps = plan.steps.map((s) => ({ ...s, ratePerSec: Math.round(s.ratePerSec * share * 1000) / 1000 }));
  return { ...plan, steps, expectedSteadySamples: plan.expectedSteadySamples.map((n) => Math.round(n * share)) };
}
