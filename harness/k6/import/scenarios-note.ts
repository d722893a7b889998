/**
 * A k6 run of several scenarios imported whole: what the user is told, and the scenarios summed.
 */
import path from 'node:path';
import { MAX_SCENARIOS } from '../output/selection.ts';

/**
 * A run of several scenarios imported whole: its arrivals are every scenario's iterations together,
 * the steps derived from (and judged on) their sum, which a background scenario beside the stepped
 * one shifts or blurs. Says which scenarios, their iterations, and the flag that keeps one; null
 * for one scenario. Scenarios that ran one after another (oneAfterAnother) are one run's steps:
 * said, with no flag to keep one (alone, each would be one rate held).
 */
export function scenariosNote(
  file: string,
  by: Readonly<Record<string, number>>,
  startsMs: Readonly<Record<string, readonly [number, number]>> = {},
  t0Ms = 0,
): { note: string; fix: string } | { note: string; oneAfterAnother: true } | null {
  const all = summedScenarios(by);
  if (all.length < 2) return null;
  const inTurn = oneAfterAnother(all, startsMs);
  if (inTurn)
    return {
      note: `${path.basename(file)} ran ${all.length} scenarios one after another (${inTurn.map(([name, [first]]) => `${name === '' ? '(no scenario tag)' : name} from ${Math.round((first - t0Ms) / 1000)} s`).join(', ')}): imported whole, their iterations the arrivals of one run's steps`,
      oneAfterAnother: true,
    };
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

/** How far (ms) a scenario's first iteration may start before the last of the one before it and still follow it. */
const TURN_OVERLAP_MS = 1000;

/**
 * The scenarios in the order they ran, where each began its iterations only once the one before
 * had started its last (a constant-arrival-rate scenario a rate, each with its startTime: one
 * run's steps, as a ramping-arrival-rate's stages are); null where two ran at once, or a scenario
 * has no starts read.
 */
function oneAfterAnother(
  all: readonly { name: string }[],
  startsMs: Readonly<Record<string, readonly [number, number]>>,
): [string, readonly [number, number]][] | null {
  const spans = all.map(({ name }) => [name, Object.hasOwn(startsMs, name) ? startsMs[name] : undefined] as const);
  if (spans.some(([, s]) => s === undefined)) return null;
  const sorted = (spans as [string, readonly [number, number]][]).sort((a, b) => a[1][0] - b[1][0]);
  for (let i = 1; i < sorted.length; i++) if (sorted[i][1][0] < sorted[i - 1][1][1] - TURN_OVERLAP_MS) return null;
  return sorted;
}
