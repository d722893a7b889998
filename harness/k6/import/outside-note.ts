/**
 * Requests outside any scenario: http_reqs without a `scenario` tag in a run whose iterations carry
 * one. k6 writes setup()'s and teardown()'s samples so; with their `::setup` / `::teardown` group
 * the ingest leaves them out (output/selection.ts), but without it (--system-tags that left group
 * out) they are counted, under their names, in the seconds before the first ramp and after the
 * last hold. They are in no step: a name only they have counted in the stage's "N names" and was
 * in no table by name, steps-by-name.csv or summary.json, and nothing said why.
 */
import type { BucketRecord } from '../../../analysis/types.ts';
import { fmtInt } from '../../../analysis/format.ts';
import type { IngestResult } from '../output/ingest.ts';

/** Names shown in the note, most requests first. */
const SHOWN = 3;

export interface OutsideScenarios {
  requests: number;
  /** Their names and requests, most first (the first names seen: IngestStats.outsideNames). */
  names: [string, number][];
  /** The names no request of a scenario has: counted among the run's names, in no step. */
  alone: string[];
}

/** The requests outside any scenario, when the run's iterations carry a scenario tag; else null. */
export function outsideScenarios(st: IngestResult['stats'], records: readonly BucketRecord[]): OutsideScenarios | null {
  if (st.requestsOutsideScenarios === 0 || !Object.keys(st.scenarioIterations).some((k) => k !== '')) return null;
  const names = Object.entries(st.outsideNames).sort((a, b) => b[1] - a[1]);
  const kept = new Set(st.names.kept);
  // a kept name's requests across the run (records' byName, before nameNotes drops a single name's)
  const requestsOf = (name: string) => records.reduce((a, r) => a + (r.byName?.[name]?.completed ?? 0), 0);
  const alone = names.filter(([name, k]) => kept.has(name) && requestsOf(name) <= k).map(([name]) => name);
  return { requests: st.requestsOutsideScenarios, names, alone };
}

/** The import's note: how many requests, their names (a few), and that they are not in the steps. */
export function outsideNote(file: string, o: OutsideScenarios): string {
  const shown = o.names.slice(0, SHOWN).map(([name, k]) => `"${name}" ${fmtInt(k)}`);
  const named = shown.length > 0 ? `${shown.join(', ')}${o.names.length > SHOWN ? ', ...' : ''}; ` : '';
  const n = o.alone.length;
  const alone =
    n === 0
      ? ''
      : `; ${n === 1 ? "one of the run's names is theirs" : `${n} of the run's names are theirs`} alone, so in no table by name, steps-by-name.csv or summary.json`;
  const one = o.requests === 1;
  return `${file} has ${fmtInt(o.requests)} request${one ? '' : 's'} outside any scenario (${named}no scenario tag, as k6 writes setup()'s and teardown()'s): ${one ? 'it belongs' : 'they belong'} to no iteration and ${one ? 'is' : 'are'} not in the steps${alone}`;
}

/** The clause of the stage's names (the report's Stages table): how many of them only such requests have. */
export function outsideClause(o: OutsideScenarios | null): string {
  return o && o.alone.length > 0 ? ` (${o.alone.length} only outside any scenario, in no step)` : '';
}
