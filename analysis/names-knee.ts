/**
 * Which name's tail grew first on the way to the knee: in a mix, reads and writes share the
 * target's pools, and one entry usually degrades before the others (the one to look at first).
 *
 * The rule, over the attempts that decide (analysis/stop.ts decidingSteps) that carry figures by
 * name, in the order they ran, up to and including the knee (the last holding step):
 *
 * - a name's baseline is its p99 at the first of those steps where that p99 is reliable (enough
 *   samples beyond it) and above 0: its first-step p99 when step 1 has enough samples;
 * - it grew at a later step when its reliable p99 there exceeds `factor` x its baseline
 *   (growth = p99 / baseline);
 * - the finding is the name that grew at the earliest step; several at that step: the largest
 *   growth, then the name (alphabetical) for a total order.
 *
 * An unreliable p99 never counts, neither as a baseline nor as growth. Pure.
 */
import { decidingSteps } from './stop.ts';
import type { NameResult, StepResult } from './types.ts';

/** A name grew when its p99 exceeds this many times its baseline. */
export const NAME_GROWTH_FACTOR = 2;

export interface NameGrowth {
  name: string;
  transaction: boolean;
  /** The step (0-based index, attempt) where its p99 first exceeded factor x its baseline. */
  index: number;
  attempt: number;
  p99Ms: number;
  /** The step its baseline p99 was read at (0-based index, attempt). */
  baseIndex: number;
  baseAttempt: number;
  baseP99Ms: number;
  /** p99Ms / baseP99Ms. */
  growth: number;
  /** Other names whose p99 also grew at the same step, largest growth first. */
  alsoGrew: string[];
}

export type NamesKnee =
  | { kind: 'grew'; factor: number; kneeIndex: number; first: NameGrowth }
  | {
      kind: 'none';
      factor: number;
      /** The knee's 0-based index, null without one. */
      kneeIndex: number | null;
      /**
       * no-names: no step carries figures by name; no-knee: no step held; too-few-samples: no name
       * has a reliable p99 at two steps up to the knee; steady: every p99 stayed within factor x its baseline.
       */
      why: 'no-names' | 'no-knee' | 'too-few-samples' | 'steady';
      /** The names that had a reliable p99 at two steps up to the knee (those the rule could judge), by code point. */
      judged: string[];
    };

/** The name's p99 in ms when it is reliable and above 0, else null. */
function reliableP99(r: NameResult | undefined): number | null {
  const p = r?.latency.find((x) => x.q === 99);
  return p && p.reliable && p.valueMs !== null && p.valueMs > 0 ? p.valueMs : null;
}

/** The name whose p99 first exceeded `factor` x its baseline at or before the knee (see the rule above). */
export function firstDegradingName(
  steps: readonly StepResult[],
  kneeIndex: number | null,
  factor: number = NAME_GROWTH_FACTOR,
): NamesKnee {
  const named = decidingSteps(steps).filter((s) => s.byName !== undefined);
  if (named.length === 0) return { kind: 'none', factor, kneeIndex, why: 'no-names', judged: [] };
  if (kneeIndex === null) return { kind: 'none', factor, kneeIndex, why: 'no-knee', judged: [] };
  const window = named.filter((s) => s.index <= kneeIndex);
  const base = new Map<string, { p99Ms: number; s: StepResult }>();
  const judged = new Set<string>();
  for (const s of window) {
    const grew: NameGrowth[] = [];
    for (const [name, r] of Object.entries(s.byName ?? {})) {
      const p99Ms = reliableP99(r);
      if (p99Ms === null) continue;
      const b = base.get(name);
      if (!b) {
        base.set(name, { p99Ms, s });
        continue;
      }
      judged.add(name);
      if (p99Ms > factor * b.p99Ms)
        grew.push({
          name,
          transaction: r.transaction === true,
          index: s.index,
          attempt: s.attempt ?? 1,
          p99Ms,
          baseIndex: b.s.index,
          baseAttempt: b.s.attempt ?? 1,
          baseP99Ms: b.p99Ms,
          growth: p99Ms / b.p99Ms,
          alsoGrew: [],
        });
    }
    if (grew.length > 0) {
      grew.sort((a, b) => b.growth - a.growth || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const [first, ...rest] = grew;
      return { kind: 'grew', factor, kneeIndex, first: { ...first, alsoGrew: rest.map((g) => g.name) } };
    }
  }
  const names = [...judged].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { kind: 'none', factor, kneeIndex, why: names.length > 0 ? 'steady' : 'too-few-samples', judged: names };
}
