/**
 * The run's names counted over every engine thread (issue 27). Each thread's book admits at most
 * MAX_NAMES and refuses a send past it (BucketRecord.refusedNames), but names built from data that
 * no rule tells from fixed ones (`product ${colour} ${item}`) can spread over the threads, each
 * under its own limit, 130 in all. The steps' merged buckets are where the union becomes known:
 * the attempt by whose hold's end it passed MAX_NAMES stops the run as a refused send does
 * (decision.ts, stop.ts), never measured as capacity. Steps phase only, so the live judging (which
 * holds the steps' buckets) and a report's replay count alike. Pure.
 */
import { MAX_NAMES } from './names-limit.ts';
import { STEPS_PHASE } from './phases.ts';
import type { AnalysedRecord, StepPlan } from './types.ts';

/** The steps' names in the order they first came (ties by name, so merged and per-thread records agree), each with that second. */
export interface NamesSeen {
  names: readonly string[];
  firstS: readonly number[];
}

/** Names past MAX_NAMES by an attempt's end: how many distinct names by then, and the first one past. */
export interface NamesSpread {
  names: number;
  first: string;
}

/** A phase's names (the steps' by default) by first second, from records of any thread (merged or not: a name is a key). */
export function namesSeen(records: readonly AnalysedRecord[], phase: string = STEPS_PHASE): NamesSeen {
  const first = new Map<string, number>();
  for (const r of records) {
    if (r.phase !== phase || r.byName === undefined) continue;
    for (const n of Object.keys(r.byName)) {
      const was = first.get(n);
      if (was === undefined || r.tS < was) first.set(n, r.tS);
    }
  }
  const order = [...first].sort(([a, aS], [b, bS]) => aS - bS || (a < b ? -1 : a > b ? 1 : 0));
  return { names: order.map(([n]) => n), firstS: order.map(([, tS]) => tS) };
}

/**
 * The names past MAX_NAMES that came before `step`'s hold ended (every second before holdEndS,
 * earlier attempts' too), or null while the run has at most MAX_NAMES.
 */
export function namesSpreadBy(seen: NamesSeen, step: Pick<StepPlan, 'holdEndS'>): NamesSpread | null {
  let count = 0;
  while (count < seen.firstS.length && seen.firstS[count] < step.holdEndS) count++;
  return count > MAX_NAMES ? { names: count, first: seen.names[MAX_NAMES] } : null;
}
