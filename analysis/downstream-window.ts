/**
 * One downstream over a steady window from the direct readings (probes.ndjson): the deltas of its
 * cumulative figures between the readings nearest the window's edges (as analysis/server-window.ts reads
 * the request series), the max of its saturation gauge between them, and the problem lines the
 * readings reported for it.
 *
 *   ops          = ops_end - ops_start                (null when either reading lacks it)
 *   byLabel[v]   = byLabel_end[v] - byLabel_start[v]  (a value born inside the window started at 0)
 *   latency      = (sum_end - sum_start) s over (count_end - count_start) ops
 *
 * A delta that would be negative is a counter that went backwards (a restart): the window is
 * marked counterReset and its deltas are left out, never negative.
 */
import { windowEdges } from './server-window.ts';
import type { DownstreamReading, DownstreamWindow, ServerSample } from './types.ts';

/** The splitBy value of series that do not carry the label. */
export const NO_LABEL = '(none)';

/** A problem line about one downstream, as readings store it (ServerSample.problems). */
export function downstreamProblem(name: string, text: string): string {
  return `downstream ${name}: ${text}`;
}

/** The problem lines of `lines` that concern downstream `name`, deduplicated, in order. */
export function problemsOf(lines: readonly string[], name: string): string[] {
  const prefix = downstreamProblem(name, '');
  return [...new Set(lines.filter((l) => l.startsWith(prefix)))];
}

/** b - a, or null when either is missing; `reset` is set when it would be negative. */
function delta(a: number | null | undefined, b: number | null | undefined, reset: { hit: boolean }): number | null {
  if (a == null || b == null) return null;
  if (b < a) {
    reset.hit = true;
    return null;
  }
  return b - a;
}

/** The downstream `name` over [fromS, toS] of `phase`, from the readings nearest its edges; null without both. */
export function scrapeDownstreamWindow(
  samples: readonly ServerSample[],
  phase: string,
  name: string,
  fromS: number,
  toS: number,
): DownstreamWindow | null {
  const edges = windowEdges(samples, phase, fromS, toS);
  if (!edges) return null;
  const { a, b, inside } = edges;
  const ra = a.downstreams?.[name];
  const rb = b.downstreams?.[name];
  if (!ra || !rb) return null;
  const reset = { hit: false };
  const w: DownstreamWindow = { source: 'scrape', fromS: a.tS, toS: b.tS, ops: delta(ra.ops, rb.ops, reset) };
  if (rb.byLabel) w.byLabel = labelDeltas(ra.byLabel ?? {}, rb.byLabel, reset);
  if ('saturation' in rb) {
    const seen = inside.map((s) => s.downstreams?.[name]?.saturation).filter((v): v is number => v != null);
    w.saturationStart = ra.saturation ?? null;
    w.saturationMax = seen.length > 0 ? Math.max(...seen) : null;
  }
  if ('latencyCount' in rb) latencyDeltas(w, ra, rb, reset);
  const problems = problemsOf(
    inside.flatMap((s) => s.problems ?? []),
    name,
  );
  if (problems.length > 0) w.problems = problems;
  return reset.hit ? { ...w, ops: null, byLabel: undefined, counterReset: true } : w;
}

function labelDeltas(
  a: Record<string, number>,
  b: Record<string, number>,
  reset: { hit: boolean },
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) {
    const d = delta(a[k] ?? 0, v, reset);
    if (d !== null) out[k] = d;
  }
  return out;
}

function latencyDeltas(w: DownstreamWindow, a: DownstreamReading, b: DownstreamReading, reset: { hit: boolean }): void {
  w.latencySumS = delta(a.latencySumS, b.latencySumS, reset);
  w.latencyCount = delta(a.latencyCount, b.latencyCount, reset);
}
