/**
 * The request series' mappings that matched nothing through the run: a mapped route, or the label
 * filter itself.
 *
 * A mapped route that never appeared (metrics.requests.routes): every step that sent its name read
 * no series of it, while the step's own series read fine. Preflight only says a route it did not
 * see (its sample request may not have been counted yet); a route absent through the whole run is
 * a wrong mapping, and its name has no cross-check: a warning, counted under the headline. Where
 * the step's own series read nothing too (a label filter that matches nothing), the filter is the
 * culprit and its own warning says so (unseenFilter): no route is blamed.
 */
import type { StepResult, Symptom } from './types.ts';

export function unseenRoutes(steps: readonly StepResult[]): Symptom[] {
  const by = new Map<string, { steps: number[]; seen: boolean; line: string | null }>();
  for (const s of steps) {
    if (!s.byName || !s.crossCheck || s.crossCheck.verdict === 'no-data') continue;
    for (const [name, n] of Object.entries(s.byName)) {
      if (!n.crossCheck) continue;
      const w = by.get(name) ?? { steps: [], seen: false, line: null };
      if (n.crossCheck.verdict !== 'no-data') w.seen = true;
      else if (!w.steps.includes(s.index)) w.steps.push(s.index);
      w.line ??= [...(s.server?.problems ?? [])].find((l) => l.includes(`routes["${name}"]`)) ?? null;
      by.set(name, w);
    }
  }
  return [...by]
    .filter(([, w]) => !w.seen && w.steps.length > 0)
    .map(([name, w]) => ({
      code: 'route-unseen',
      step: null,
      figures: { name, steps: w.steps, line: w.line },
    }));
}

/** A step reading's line that blames the label filter: the direct reading's, or PromQL's for a selector with labels. */
const FILTER_LINE = /^(metrics\.requests\.labels |Prometheus holds no samples of [^\s{]+\{[^}])/;

/**
 * A label filter (metrics.requests.labels) that no step ever read: every step with a server view
 * read no figure, and a reading's line names the filter. Preflight refuses a filter that cannot
 * match, but only says one that misses by its route label's value (the sample request may not be
 * counted yet: docs/decisions/069); one that matched nothing through the run was wrong, and no step
 * has a cross-check: a warning, counted under the headline, quoting the line that names the values.
 */
export function unseenFilter(steps: readonly StepResult[]): Symptom[] {
  const viewed = steps.filter((s) => s.crossCheck);
  if (viewed.length === 0 || viewed.some((s) => s.crossCheck!.verdict !== 'no-data')) return [];
  const line = viewed
    .flatMap((s) => s.server?.problems ?? [])
    .find((l) => FILTER_LINE.test(l.replace(/^through PromQL: /, '')));
  if (line === undefined) return [];
  return [{ code: 'labels-unseen', step: null, figures: { steps: [...new Set(viewed.map((s) => s.index))], line } }];
}
