/**
 * A mapped route that never appeared (metrics.requests.routes): every step that sent its name read
 * no series of it, while the step's own series read fine. Preflight only says a route it did not
 * see (its sample request may not have been counted yet); a route absent through the whole run is
 * a wrong mapping, and its name has no cross-check: a warning, counted under the headline. Where
 * the step's own series read nothing too (a label filter that matches nothing), the filter is the
 * culprit and its line says so: no route is blamed.
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
