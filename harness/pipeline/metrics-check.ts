/**
 * Preflight's rules for the target's metrics, pure (preflight.ts does the fetching): the families
 * an endpoint exposes that look like a missing one, the presets whose request series it has, and
 * the unit sanity rule.
 *
 * The unit rule. A series in milliseconds read as seconds makes every server figure 1000 x too
 * large. Before any load, preflight has the target's cumulative mean (sum / count of the request
 * series, read in the configured unit, over everything it has counted, its sample requests
 * included) and the time its sample requests took. It refuses the run when
 *
 *   mean > 10 s  and  mean > 500 x the sample requests' time   (UNIT_FLOOR_S, UNIT_RATIO)
 *
 * An honest slow target cannot trip it: its sample requests are slow too (a mean of 30 s with a
 * 20 s sample is a ratio of 1.5). A misread is a factor of 1000 on a mean that a sample of the
 * same target shows at about its real size, so it lands above 500 x; the 10 s floor keeps a fast
 * sample (0.2 ms) from refusing a mean a heavier endpoint in the same series honestly has (1 s).
 * The time used is that of all the sample arrivals together, at least the slowest one's: the rule
 * only gets more lenient for it. What it does not catch (a misread mean under 10 s: a target
 * faster than 10 ms) the cross-check shows as a server 1000 x slower than the client.
 *
 * A second rule needs no traffic: a series whose name says its unit (`_milliseconds`, `_ms`,
 * `_seconds`) against the preset's unit is refused with the fix, unless metrics.requests.unit was
 * set explicitly (then the user's word stands).
 */
import { distance } from '../config/nearest.ts';
import { presetCountNames, type RequestPreset, type RequestSeries } from '../../analysis/request-series.ts';

export const UNIT_RATIO = 500;
export const UNIT_FLOOR_S = 10;

/** The metric name of every sample line of a Prometheus text body. */
export function metricNames(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/[{\s]/, 1)[0]!),
  );
}

const SUFFIXES = ['_bucket', '_count', '_sum', '_max', '_total', '_created', '_info'];

/** A series name without its histogram, summary or counter suffix: the family it belongs to. */
export function familyOf(name: string): string {
  const s = SUFFIXES.find((x) => name.endsWith(x) && name.length > x.length);
  return s ? name.slice(0, -s.length) : name;
}

const words = (name: string) => name.toLowerCase().split(/[_:]+/).filter(Boolean).map(stem);
const stem = (w: string) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w);

/**
 * The families of `present` that look like `wanted`'s: within a few edits, or sharing half its
 * words (requests/request count as one), or its first two or last two words; closest first, at
 * most five, each with the suffixes the endpoint has ("http_server_request_duration_seconds
 * (_bucket, _count, _sum)").
 */
export function lookAlike(wanted: string, present: Iterable<string>): string[] {
  const families = new Map<string, Set<string>>();
  for (const name of present) {
    const f = familyOf(name);
    if (!families.has(f)) families.set(f, new Set());
    if (f !== name) families.get(f)!.add(name.slice(f.length));
  }
  const target = familyOf(wanted);
  const tw = words(target);
  const scored: { family: string; score: number }[] = [];
  for (const family of families.keys()) {
    if (family === target && families.get(family)!.has(wanted.slice(target.length))) continue;
    const fw = words(family);
    const shared = tw.filter((w) => fw.includes(w)).length;
    const d = distance(target.toLowerCase(), family.toLowerCase());
    const ends =
      (tw.length >= 2 && fw.length >= 2 && tw[0] === fw[0] && tw[1] === fw[1]) ||
      (tw.length >= 2 && fw.length >= 2 && tw.at(-1) === fw.at(-1) && tw.at(-2) === fw.at(-2));
    const close = d <= Math.max(3, Math.floor(target.length / 4)) || (shared >= 2 && shared * 2 >= tw.length) || ends;
    if (close) scored.push({ family, score: d - 3 * shared });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.family.localeCompare(b.family))
    .slice(0, 5)
    .map(({ family }) => {
      const sfx = [...families.get(family)!].sort();
      return sfx.length ? `${family} (${sfx.join(', ')})` : family;
    });
}

/** The presets whose request series (their count) the endpoint exposes. */
export function presetsExposed(present: ReadonlySet<string>): RequestPreset[] {
  return presetCountNames()
    .filter((p) => present.has(p.count))
    .map((p) => p.preset);
}

export interface UnitProblem {
  problem: string;
  fix: string;
}

/** The name rule (see the file comment): the series' name says another unit than the one it is read in. */
export function unitNameProblem(s: RequestSeries): UnitProblem | null {
  if (s.unit === null || s.unitDeclared) return null;
  const says = /(^|_)(milliseconds|millis|ms)(_|$)/.test(s.name)
    ? 'milliseconds'
    : /(^|_)seconds(_|$)/.test(s.name)
      ? 'seconds'
      : null;
  if (says === null || says === s.unit) return null;
  return {
    problem: `the request series ${s.name} is named in ${says} but the ${s.preset} preset reads it in ${s.unit}: every server figure would be ${says === 'milliseconds' ? '1000 x too large' : '1000 x too small'}`,
    fix: `set metrics.requests.unit: '${says}' (or the preset whose names these are)`,
  };
}

/** The mean rule (see the file comment); null when it holds or nothing was counted yet. */
export function unitMeanProblem(s: RequestSeries, meanS: number | null, sampleMs: number): UnitProblem | null {
  if (s.unit !== 'seconds' || meanS === null || !Number.isFinite(meanS)) return null;
  if (!(meanS > UNIT_FLOOR_S && meanS * 1000 > UNIT_RATIO * sampleMs)) return null;
  return {
    problem: `the request series ${s.name} reads a mean of ${fmtS(meanS)} s per request (in ${s.unit}) while preflight's sample requests took ${sampleMs.toFixed(1)} ms in all: more than ${UNIT_RATIO} x their time and over ${UNIT_FLOOR_S} s, so it is probably in milliseconds`,
    fix: "set metrics.requests.unit: 'milliseconds' (or the preset whose names these are, e.g. 'envoy'); if requests in the series really last that long (streams, long polls), leave them out with metrics.requests.labels",
  };
}

function fmtS(s: number): string {
  return s >= 100 ? s.toFixed(0) : s.toFixed(2);
}

export type PoolNames = { active: string; pending: string; max: string };

/**
 * The metrics.pool fields whose gauge the endpoint lacks, where it has another of the pool's: a
 * misspelt name would leave the Pool column judging without it ("active up to ? of 2"). None
 * present is no pool there (the defaults are HikariCP's, absent from most targets): nothing to say.
 */
export function poolGaugesMissing(pool: PoolNames, present: ReadonlySet<string>): (keyof PoolNames)[] {
  const fields = (['active', 'pending', 'max'] as const).filter((f) => !present.has(pool[f]));
  return fields.length === 3 ? [] : fields;
}
