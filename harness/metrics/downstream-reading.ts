/**
 * Each declared downstream's cumulative figures in one reading of the target's endpoint
 * (metrics.downstreams): its ops counter summed over the series that carry its labels, the same by
 * value of splitBy, its saturation gauge, and its per-op latency's _sum and _count. A series that
 * matches nothing, or a sample that is not a number, is a problem line (ServerSample.problems),
 * and the figure is null: the run goes on.
 */
import type { DownstreamConfig, DownstreamReading } from '../../analysis/types.ts';
import { downstreamProblem, NO_LABEL } from '../../analysis/downstream-window.ts';
import type { PromSample } from './prom-text.ts';

/** Every declared downstream in the reading `p` (problems appended to `problems`). */
export function downstreamReadings(
  declared: readonly DownstreamConfig[],
  p: readonly PromSample[],
  problems: string[],
): Record<string, DownstreamReading> {
  const out: Record<string, DownstreamReading> = {};
  declared.forEach((d, i) => {
    const say = (text: string) => problems.push(downstreamProblem(d.name, text));
    const field = (f: string) => `metrics.downstreams[${i}].${f}`;
    const reading: DownstreamReading = { ops: summed(p, d.ops, d.labels ?? {}, field('ops'), say) };
    if (d.splitBy) reading.byLabel = byLabel(p, d, field('splitBy'), say);
    if (d.saturation) reading.saturation = summed(p, d.saturation, d.labels ?? {}, field('saturation'), say);
    if (d.latency) {
      reading.latencySumS = summed(p, `${d.latency}_sum`, {}, field('latency'), say);
      reading.latencyCount = summed(p, `${d.latency}_count`, {}, field('latency'), say);
    }
    out[d.name] = reading;
  });
  return out;
}

/** The series of `name` carrying every label of `labels`. */
function matching(p: readonly PromSample[], name: string, labels: Record<string, string>): PromSample[] {
  return p.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** Sum over the matching series; null (and a problem) when none match or one is not a number. */
function summed(
  p: readonly PromSample[],
  name: string,
  labels: Record<string, string>,
  field: string,
  say: (text: string) => void,
): number | null {
  const hits = matching(p, name, labels);
  if (hits.length === 0) {
    say(nothingMatches(p, name, labels, field));
    return null;
  }
  const bad = hits.find((s) => !Number.isFinite(s.value));
  if (bad) {
    say(`${name} reads ${bad.value} (not a number): its figures are left out; check what exports ${field}`);
    return null;
  }
  return hits.reduce((a, s) => a + s.value, 0);
}

/** Why nothing matched: no series of that name, or labels none of its series carry. */
function nothingMatches(p: readonly PromSample[], name: string, labels: Record<string, string>, field: string): string {
  const family = p.filter((s) => s.name === name);
  if (family.length === 0)
    return `no series named ${name} in the reading: check ${field} against the endpoint's names (a downstream's series often live on its exporter: read them through metrics.prometheus)`;
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return `${name}{${wanted}} matches none of its ${family.length} series: fix the labels of ${field.replace(/\.[a-z]+$/, '.labels')}`;
}

/** The ops counter by value of splitBy (series without the label under NO_LABEL); null when a value is not a number. */
function byLabel(
  p: readonly PromSample[],
  d: DownstreamConfig,
  field: string,
  say: (text: string) => void,
): Record<string, number> | undefined {
  const hits = matching(p, d.ops, d.labels ?? {});
  if (hits.length === 0 || hits.some((s) => !Number.isFinite(s.value))) return undefined;
  if (!hits.some((s) => s.labels[d.splitBy!] !== undefined)) {
    say(`no series of ${d.ops} carries the label ${d.splitBy}: set ${field} to one of its labels`);
    return undefined;
  }
  const out: Record<string, number> = {};
  for (const s of hits) {
    const k = s.labels[d.splitBy!] ?? NO_LABEL;
    out[k] = (out[k] ?? 0) + s.value;
  }
  return out;
}
