/**
 * Which name's tail grew first on the way to the knee: in a mix, reads and writes share the
 * target's pools, and one entry usually degrades before the others (the one to look at first).
 *
 * The rule, over the attempts that decide (analysis/deciding-steps.ts decidingSteps) that carry figures by
 * name, did not hold generator-limited and whose event loop did not stall past the warning's bound
 * (LOOP_DELAY_WARN_MS: the latencies of both hold the generator's own stalls; a user's run read a
 * stall's 6x p90 as the entry that degraded first), in the order they ran, up to and including the
 * knee (the last holding step):
 *
 * - a name's baseline is its p99 at the first of those steps where that p99 is reliable (enough
 *   samples beyond it) and above 0: its first-step p99 when step 1 has enough samples;
 * - its p99 is past the baseline at a later step when it exceeds `factor` x the baseline
 *   (growth = p99 / baseline) and lies more than `floorMs` above it (NAME_RISE_FLOOR_MS): on a
 *   shared machine a 2x test on a 2.5 ms baseline measures jitter (a user's review of 12-07: read
 *   order's p90 2.42 -> 5.33 ms, +2.9 ms, was named first to degrade where it rose 70x at the knee);
 * - it grew at the first step from which it is past the baseline at every later step where it is
 *   reliable, up to the knee (a rise it fell back from is no degradation);
 * - the finding is the name that grew at the earliest step; several at that step: the largest
 *   growth, then the name (alphabetical) for a total order.
 *
 * Beside the tails, a name failing a share of its arrivals degraded too (`failing`): its error rate
 * at NAME_SHARE_WARN or more, on FAILED_MIN failures at least (the bounds failures-in-held.ts
 * warns from), at every step compared from some step on up to the knee. It needs no baseline nor
 * samples beyond a percentile, so it is read at every step compared, the knee's alone included.
 *
 * An unreliable p99 never counts, neither as a baseline nor as growth. When no name has a reliable
 * p99 at two of those steps (a short hold: p99 needs 3,000 samples of the name in a window, p90
 * 300), the same rule runs on p90 and the finding says so (`q`): the body of a name's latency
 * grows near the knee too, and a p90 of enough samples is evidence where a p99 of too few is not.
 * Pure.
 */
import { decidingSteps } from './deciding-steps.ts';
import { reliableMs, TAIL_PERCENTILES, type TailPercentile } from './percentiles.ts';
import { byCodePoint } from './format.ts';
import { FAILED_MIN, NAME_SHARE_WARN } from './failures-in-held.ts';
import type { StepResult } from './types.ts';
import { generatorInLatencies } from './warnings.ts';

/** A name grew when its p99 exceeds this many times its baseline. */
export const NAME_GROWTH_FACTOR = 2;

/**
 * ... and lies more than this many ms above it: the floor compare and the gate ask of a name's tail
 * (analysis/compare/by-name.ts p99FloorMs), so the report's finding and the gate agree on what a
 * few ms are. Decision 036.
 */
export const NAME_RISE_FLOOR_MS = 5;

export interface NameGrowth {
  name: string;
  transaction: boolean;
  /** The step (0-based index, attempt) from which its percentile (NamesKnee q) stayed past factor x its baseline and the floor. */
  index: number;
  attempt: number;
  ms: number;
  /** The step its baseline was read at (0-based index, attempt). */
  baseIndex: number;
  baseAttempt: number;
  baseMs: number;
  /** ms / baseMs. */
  growth: number;
  /** Other names whose percentile also grew at the same step, largest growth first. */
  alsoGrew: string[];
  /**
   * Other judged names of its kind (requests, or transactions) whose percentile rose at least as many ms over their own baselines at the
   * same step without passing the factor (a larger baseline): a cause they share (a pool, a lock)
   * adds the same wait to each, and crosses the factor first for the name with the smallest
   * baseline (a review of the demo: read order 5.0 -> 11.3 ms named first, create order 12.1 -> 19.7).
   */
  roseAsMuch: { name: string; baseMs: number; ms: number }[];
}

/** A step's figure of a name (0-based index, attempt). */
export interface NamePoint {
  index: number;
  attempt: number;
  ms: number;
  /** ms / the name's baseline. */
  growth: number;
}

/**
 * A name whose percentile went past factor x its baseline at some step but did not grow by the
 * rule: where it went furthest past, and why it does not count.
 */
export interface NameTouched {
  name: string;
  transaction: boolean;
  baseMs: number;
  /** Its largest growth past factor. */
  peak: NamePoint;
  /** At that step it lay within the floor (floorMs) of its baseline. */
  withinFloor: boolean;
  /** The first step compared after it that was not past the baseline (fell back), if one was. */
  back?: NamePoint;
}

/** A name failing a share of its own completions at every step compared from `from` up to the knee. */
export interface NameFailing {
  name: string;
  transaction: boolean;
  /** The first step of that run of steps, its error rate and failures. */
  from: { index: number; attempt: number; errorRate: number; failed: number };
  /** The last step compared, where later than `from`. */
  last?: { index: number; attempt: number; errorRate: number; failed: number };
}

/** What every finding carries: the steps compared, the floor's terms, the names failing. */
interface Compared {
  /** Steps (0-based) up to the knee left out: the generator's own delays are in their latencies (generatorInLatencies). */
  stalled: number[];
  /** The last step compared (0-based): the knee's, or an earlier one where the knee was left out; null where none was. */
  lastIndex: number | null;
  /** How far (ms) above its baseline a percentile had to lie to count (NAME_RISE_FLOOR_MS). */
  floorMs: number;
  /** Names whose error rate stayed at NAME_SHARE_WARN or more from a step compared on (earliest first). */
  failing: NameFailing[];
}

export type NamesKnee =
  | (Compared & {
      kind: 'grew';
      factor: number;
      q: TailPercentile;
      kneeIndex: number;
      first: NameGrowth;
      /** The names the rule could judge up to the knee (a reliable percentile at two steps), by code point. */
      judged: string[];
    })
  | (Compared & {
      kind: 'none';
      factor: number;
      /** The percentile judged: the last tried (90 when no name had a reliable p99 at two steps). */
      q: TailPercentile;
      /** The knee's 0-based index, null without one. */
      kneeIndex: number | null;
      /**
       * no-names: no step carries figures by name; no-knee: no step held; one-step: the knee is the
       * only step with names up to it (step 1), no earlier step gives a baseline; too-few-samples:
       * no name has a reliable p99, nor a reliable p90, at two steps up to the knee; steady: no
       * judged percentile went past factor x its baseline and the floor to stay there up to the knee.
       */
      why: 'no-names' | 'no-knee' | 'one-step' | 'too-few-samples' | 'steady';
      /** The names that had the percentile reliable at two steps up to the knee (those the rule could judge), by code point. */
      judged: string[];
      /** steady: the name that went furthest past factor x its baseline without growing by the rule, if one did. */
      touched?: NameTouched;
    });

/**
 * The name whose p99 (else p90) first exceeded `factor` x its baseline, and its floor, at or before
 * the knee, and the names failing a share of their arrivals (see the rule above).
 */
export function firstDegradingName(
  steps: readonly StepResult[],
  kneeIndex: number | null,
  factor: number = NAME_GROWTH_FACTOR,
  floorMs: number = NAME_RISE_FLOOR_MS,
): NamesKnee {
  const q = TAIL_PERCENTILES[0];
  // a step held generator-limited, or whose loop stalled, has the generator's own delay in its latencies: not the target's growth
  const withNames = decidingSteps(steps).filter((s) => s.byName !== undefined);
  const named = withNames.filter((s) => !generatorInLatencies(s));
  const inKnee = (s: StepResult) => kneeIndex === null || s.index <= kneeIndex;
  const stalled = [...new Set(withNames.filter((s) => generatorInLatencies(s) && inKnee(s)).map((s) => s.index))];
  const none = { kind: 'none' as const, factor, q, kneeIndex, judged: [] };
  const empty: Compared = { stalled: [], lastIndex: null, floorMs, failing: [] };
  if (withNames.length === 0) return { ...none, ...empty, why: 'no-names' };
  if (kneeIndex === null) return { ...none, ...empty, stalled, why: 'no-knee' };
  const window = named.filter((s) => s.index <= kneeIndex);
  const compared: Compared = {
    stalled,
    lastIndex: window.length === 0 ? null : Math.max(...window.map((s) => s.index)),
    floorMs,
    failing: failingNames(window),
  };
  // more samples would not help: there is nothing before the knee to grow from
  if (new Set(window.map((s) => s.index)).size < 2) return { ...none, ...compared, why: 'one-step' };
  let found: NamesKnee | null = null;
  for (const q of TAIL_PERCENTILES) {
    found = firstGrowthAt(window, kneeIndex, factor, q, compared);
    if (found.kind === 'grew' || found.why !== 'too-few-samples') return found;
  }
  return found!;
}

/**
 * The names whose error rate was NAME_SHARE_WARN or more, on FAILED_MIN failures at least, at
 * every step of the window (in order) from some step on where they completed any: a share they
 * fell back from is no degradation, as a tail's is not. Earliest first, then the higher share
 * there, then by name.
 */
function failingNames(window: readonly StepResult[]): NameFailing[] {
  const series = new Map<string, { s: StepResult; order: number; errorRate: number; failed: number; tx: boolean }[]>();
  window.forEach((s, order) => {
    for (const [name, r] of Object.entries(s.byName ?? {})) {
      if (r.completed <= 0) continue;
      const point = { s, order, errorRate: r.errorRate, failed: r.failed, tx: r.transaction === true };
      series.set(name, [...(series.get(name) ?? []), point]);
    }
  });
  const failing = (p: { errorRate: number; failed: number }) =>
    p.failed >= FAILED_MIN && p.errorRate >= NAME_SHARE_WARN;
  const found: (NameFailing & { order: number })[] = [];
  for (const [name, points] of series) {
    let from = -1;
    for (let i = points.length - 1; i >= 0 && failing(points[i]); i--) from = i;
    if (from < 0) continue;
    const at = (p: (typeof points)[number]) => ({
      index: p.s.index,
      attempt: p.s.attempt ?? 1,
      errorRate: p.errorRate,
      failed: p.failed,
    });
    const first = points[from];
    const last = points.at(-1)!;
    found.push({
      name,
      transaction: first.tx,
      from: at(first),
      ...(last !== first ? { last: at(last) } : {}),
      order: first.order,
    });
  }
  found.sort((a, b) => a.order - b.order || b.from.errorRate - a.from.errorRate || byCodePoint(a.name, b.name));
  return found.map(({ order: _, ...f }) => f);
}

/** The rule on percentile q over the window's steps, in order. */
function firstGrowthAt(
  window: readonly StepResult[],
  kneeIndex: number,
  factor: number,
  q: TailPercentile,
  compared: Compared,
): NamesKnee {
  // each name's reliable percentile, step by step in the order they ran
  const series = new Map<string, { ms: number; s: StepResult; transaction: boolean }[]>();
  for (const s of window)
    for (const [name, r] of Object.entries(s.byName ?? {})) {
      const ms = reliableMs(r.latency, q);
      if (ms === null) continue;
      series.set(name, [...(series.get(name) ?? []), { ms, s, transaction: r.transaction === true }]);
    }
  const judged = [...series].filter(([, points]) => points.length >= 2).map(([name]) => name);
  const point = (p: { ms: number; s: StepResult }, baseMs: number): NamePoint => ({
    index: p.s.index,
    attempt: p.s.attempt ?? 1,
    ms: p.ms,
    growth: p.ms / baseMs,
  });
  // past the baseline: factor x it, and more than the floor above it (a few ms of jitter are no finding)
  const past = (p: NamePoint, baseMs: number) => p.growth > factor && p.ms - baseMs > compared.floorMs;
  // a name grew at the first step from which its percentile stayed past its baseline at every
  // later step it was judged: a rise it fell back from (a 2.3x p90 at half the knee's rate, 1.7x
  // two steps later: a user's review of 12-07) is no degradation
  const grew: NameGrowth[] = [];
  const touched: NameTouched[] = [];
  for (const name of judged) {
    const [b, ...rest] = series.get(name)!;
    const later = rest.map((p) => point(p, b.ms));
    let from = -1;
    for (let i = later.length - 1; i >= 0 && past(later[i], b.ms); i--) from = i;
    const transaction = rest[0].transaction;
    if (from < 0) {
      // went past factor x its baseline somewhere, without growing by the rule: the sentence names the furthest
      const over = later.filter((p) => p.growth > factor);
      if (over.length === 0) continue;
      const peak = over.reduce((a, p) => (p.growth > a.growth ? p : a));
      const back = later.slice(later.indexOf(peak) + 1).find((p) => !past(p, b.ms));
      touched.push({
        name,
        transaction,
        baseMs: b.ms,
        peak,
        withinFloor: !past(peak, b.ms),
        ...(back ? { back } : {}),
      });
      continue;
    }
    const at = later[from];
    grew.push({
      name,
      transaction: rest[from].transaction,
      index: at.index,
      attempt: at.attempt,
      ms: at.ms,
      baseIndex: b.s.index,
      baseAttempt: b.s.attempt ?? 1,
      baseMs: b.ms,
      growth: at.growth,
      alsoGrew: [],
      roseAsMuch: [],
    });
  }
  const names = judged.sort(byCodePoint);
  if (grew.length === 0) {
    const why = names.length > 0 ? 'steady' : 'too-few-samples';
    touched.sort((a, b) => b.peak.growth - a.peak.growth || byCodePoint(a.name, b.name));
    const furthest = touched.length > 0 ? { touched: touched[0] } : {};
    return { kind: 'none', factor, q, kneeIndex, why, judged: names, ...compared, ...furthest };
  }
  // the earliest step (in the order the steps ran), then the largest growth, then the name
  const order = (g: NameGrowth) => window.findIndex((s) => s.index === g.index && (s.attempt ?? 1) === g.attempt);
  grew.sort((a, b) => order(a) - order(b) || b.growth - a.growth || byCodePoint(a.name, b.name));
  const [first, ...others] = grew;
  const alsoGrew = others.filter((g) => order(g) === order(first)).map((g) => g.name);
  const roseAsMuch = names.flatMap((name) => {
    if (name === first.name || alsoGrew.includes(name)) return [];
    const [b, ...rest] = series.get(name)!;
    // of its own kind: a transaction's duration holds its requests' and rises with them
    if (b.transaction !== first.transaction) return [];
    const same = rest.find((p) => p.s.index === first.index && (p.s.attempt ?? 1) === first.attempt);
    return same && same.ms - b.ms >= first.ms - first.baseMs ? [{ name, baseMs: b.ms, ms: same.ms }] : [];
  });
  return {
    kind: 'grew',
    factor,
    q,
    kneeIndex,
    first: { ...first, alsoGrew, roseAsMuch },
    judged: names,
    ...compared,
  };
}
