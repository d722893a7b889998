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
 * - it grew at a later step when its reliable p99 there exceeds `factor` x its baseline
 *   (growth = p99 / baseline) and stays past it at every later step where it is reliable (a
 *   rise it fell back from is no degradation);
 * - the finding is the name that grew at the earliest step; several at that step: the largest
 *   growth, then the name (alphabetical) for a total order.
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
import type { NameResult, StepResult } from './types.ts';
import { generatorInLatencies } from './warnings.ts';

/** A name grew when its p99 exceeds this many times its baseline. */
export const NAME_GROWTH_FACTOR = 2;

export interface NameGrowth {
  name: string;
  transaction: boolean;
  /** The step (0-based index, attempt) where its percentile (NamesKnee q) first exceeded factor x its baseline. */
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
}

export type NamesKnee =
  | {
      kind: 'grew';
      factor: number;
      q: TailPercentile;
      kneeIndex: number;
      first: NameGrowth;
      /** The names the rule could judge up to the knee (a reliable percentile at two steps), by code point. */
      judged: string[];
      /** Steps (0-based) up to the knee left out: the generator's own delays are in their latencies (generatorInLatencies). */
      stalled: number[];
    }
  | {
      kind: 'none';
      factor: number;
      /** The percentile judged: the last tried (90 when no name had a reliable p99 at two steps). */
      q: TailPercentile;
      /** The knee's 0-based index, null without one. */
      kneeIndex: number | null;
      /**
       * no-names: no step carries figures by name; no-knee: no step held; one-step: the knee is the
       * only step with names up to it (step 1), no earlier step gives a baseline; too-few-samples:
       * no name has a reliable p99, nor a reliable p90, at two steps up to the knee; steady: every
       * judged percentile stayed within factor x its baseline.
       */
      why: 'no-names' | 'no-knee' | 'one-step' | 'too-few-samples' | 'steady';
      /** The names that had the percentile reliable at two steps up to the knee (those the rule could judge), by code point. */
      judged: string[];
      /** Steps (0-based) up to the knee left out: the generator's own delays are in their latencies (generatorInLatencies). */
      stalled: number[];
    };

/**
 * The name whose p99 (else p90) first exceeded `factor` x its baseline at or before the knee (see
 * the rule above).
 */
export function firstDegradingName(
  steps: readonly StepResult[],
  kneeIndex: number | null,
  factor: number = NAME_GROWTH_FACTOR,
): NamesKnee {
  const q = TAIL_PERCENTILES[0];
  // a step held generator-limited, or whose loop stalled, has the generator's own delay in its latencies: not the target's growth
  const withNames = decidingSteps(steps).filter((s) => s.byName !== undefined);
  const named = withNames.filter((s) => !generatorInLatencies(s));
  const inKnee = (s: StepResult) => kneeIndex === null || s.index <= kneeIndex;
  const stalled = [...new Set(withNames.filter((s) => generatorInLatencies(s) && inKnee(s)).map((s) => s.index))];
  if (withNames.length === 0) return { kind: 'none', factor, q, kneeIndex, why: 'no-names', judged: [], stalled: [] };
  if (kneeIndex === null) return { kind: 'none', factor, q, kneeIndex, why: 'no-knee', judged: [], stalled };
  const window = named.filter((s) => s.index <= kneeIndex);
  // more samples would not help: there is nothing before the knee to grow from
  if (new Set(window.map((s) => s.index)).size < 2)
    return { kind: 'none', factor, q, kneeIndex, why: 'one-step', judged: [], stalled };
  let found: NamesKnee | null = null;
  for (const q of TAIL_PERCENTILES) {
    found = firstGrowthAt(window, kneeIndex, factor, q, stalled);
    if (found.kind === 'grew' || found.why !== 'too-few-samples') return found;
  }
  return found!;
}

/** The rule on percentile q over the window's steps, in order. */
function firstGrowthAt(
  window: readonly StepResult[],
  kneeIndex: number,
  factor: number,
  q: TailPercentile,
  stalled: number[],
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
  // a name grew at the first step from which its percentile stayed past factor x its baseline at
  // every later step it was judged: a rise it fell back from (a 2.3x p90 at half the knee's rate,
  // 1.7x two steps later: a user's review of 12-07) is no degradation
  const grew: NameGrowth[] = [];
  for (const name of judged) {
    const [b, ...later] = series.get(name)!;
    let from = -1;
    for (let i = later.length - 1; i >= 0 && later[i].ms > factor * b.ms; i--) from = i;
    if (from < 0) continue;
    const at = later[from];
    grew.push({
      name,
      transaction: at.transaction,
      index: at.s.index,
      attempt: at.s.attempt ?? 1,
      ms: at.ms,
      baseIndex: b.s.index,
      baseAttempt: b.s.attempt ?? 1,
      baseMs: b.ms,
      growth: at.ms / b.ms,
      alsoGrew: [],
    });
  }
  const names = judged.sort(byCodePoint);
  if (grew.length === 0) {
    const why = names.length > 0 ? 'steady' : 'too-few-samples';
    return { kind: 'none', factor, q, kneeIndex, why, judged: names, stalled };
  }
  // the earliest step (in the order the steps ran), then the largest growth, then the name
  const order = (g: NameGrowth) => window.findIndex((s) => s.index === g.index && (s.attempt ?? 1) === g.attempt);
  grew.sort((a, b) => order(a) - order(b) || b.growth - a.growth || byCodePoint(a.name, b.name));
  const [first, ...rest] = grew;
  const alsoGrew = rest.filter((g) => order(g) === order(first)).map((g) => g.name);
  return { kind: 'grew', factor, q, kneeIndex, first: { ...first, alsoGrew }, judged: names, stalled };
}
