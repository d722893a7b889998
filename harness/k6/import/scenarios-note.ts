/**
 * A k6 run of several scenarios imported whole: what the user is told, and the scenarios summed.
 */
import path from 'node:path';
import { MAX_SCENARIOS } from '../output/selection.ts';

/**
 * A run of several scenarios imported whole: its arrivals are every scenario's iterations together,
 * the steps derived from (and judged on) their sum, which a background scenario beside the stepped
 * one shifts or blurs. Says which scenarios, their iterations, and the flag that keeps one; null
 * for one scenario.
 */
export function scenariosNote(
  file: string,
  by: Readonly<Record<string, number>>,
): { note: string; fix: string } | null {
  const all = summedScenarios(by);
  if (all.length < 2) return null;
  const named = all.filter((x) => x.name !== '');
  const list = all
    .map(
      ({ name, iterations: k }) =>
        `${name === '' ? '(no scenario tag)' : name}: ${k.toLocaleString('en-US')} iteration${k === 1 ? '' : 's'}`,
    )
    .join(', ');
  const more = all.length >= MAX_SCENARIOS ? ` (the first ${MAX_SCENARIOS} scenarios seen)` : '';
  const fix = `pass --scenario ${named[0]?.name ?? 'NAME'} to import one scenario alone (its iterations, requests and drops; --scenario again for more)`;
  return {
    note: `${path.basename(file)} ran ${all.length} scenarios${more} (${list}): its arrivals are all their iterations together, and its steps are judged on their sum; ${fix}`,
    fix,
  };
}

/** The scenarios a run imported whole sums, most iterations first (scenariosNote's order). */
export function summedScenarios(by: Readonly<Record<string, number>>): { name: string; iterations: number }[] {
  return Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .map(([name, iterations]) => ({ name, iterations }));
}
