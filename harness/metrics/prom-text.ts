/**
 * Reads Prometheus text exposition (format 0.0.4) into samples. Only what plateau needs: metric
 * name, labels (with \\, \" and \n escapes), value (including NaN and +Inf); comments and
 * timestamps are skipped. See docs/decisions/004-own-prometheus-text-reader.md.
 */

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The value as written when it is not a number ("12abc"): value is NaN, and sums and maxes skip it. */
  raw?: string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePromText(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const s = parseLine(line);
    if (s) out.push(s);
  }
  return out;
}

function parseLine(line: string): PromSample | null {
  const m = NAME.exec(line);
  if (!m) return null;
  const name = m[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    const end = parseLabels(line, i + 1, labels);
    if (end < 0) return null;
    i = end + 1;
  }
  const text = line.slice(i).trim().split(/\s+/)[0];
  if (text === undefined || text === '') return null;
  const value = parseValue(text);
  return value === null ? { name, labels, value: NaN, raw: text } : { name, labels, value };
}

/** Parses `k="v",...}` starting at i; returns the index of the closing brace, or -1. */
function parseLabels(line: string, i: number, into: Record<string, string>): number {
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return i;
    const eq = line.indexOf('=', i);
    if (eq < 0 || line[eq + 1] !== '"') return -1;
    const key = line.slice(i, eq).trim();
    let j = eq + 2;
    let v = '';
    while (j < line.length && line[j] !== '"') {
      if (line[j] === '\\' && j + 1 < line.length) {
        const c = line[j + 1];
        v += c === 'n' ? '\n' : c;
        j += 2;
      } else v += line[j++];
    }
    if (j >= line.length) return -1;
    into[key] = v;
    i = j + 1;
  }
  return -1;
}

function parseValue(s: string): number | null {
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  const v = Number(s);
  return Number.isNaN(v) ? null : v;
}

/** Sum of the samples of `name` whose labels include every pair of `filter` (null when none match). */
export function sumOf(
  samples: readonly PromSample[],
  name: string,
  filter: Record<string, string> = {},
): number | null {
  let found = false;
  let total = 0;
  for (const s of samples) {
    if (s.name !== name || s.raw !== undefined || !matches(s.labels, filter)) continue;
    found = true;
    total += s.value;
  }
  return found ? total : null;
}

/** Max of the samples of `name` matching the filter (null when none match). */
export function maxOf(
  samples: readonly PromSample[],
  name: string,
  filter: Record<string, string> = {},
): number | null {
  let best: number | null = null;
  for (const s of samples)
    if (s.name === name && s.raw === undefined && matches(s.labels, filter) && (best === null || s.value > best))
      best = s.value;
  return best;
}

export function matches(labels: Record<string, string>, filter: Record<string, string>): boolean {
  for (const k in filter) if (labels[k] !== filter[k]) return false;
  return true;
}

/** A cumulative histogram summed per `le` over the matching series, or why it cannot be read. */
export interface HistogramRead {
  /** Finite bounds (`le` x toMs) ascending, and the cumulative counts at each and, last, at +Inf; null when unreadable or absent. */
  reading: { boundsMs: number[]; cumulative: number[] } | null;
  /** Each a line naming the problem and the fix (stable across readings, so a window can deduplicate them). */
  problems: string[];
}

/**
 * The `_bucket` samples of `bucketName` matching `filter`, summed per `le` (the sum by (le) a
 * histogram_quantile over several series takes), bounds multiplied by `toMs`. A series without an
 * `le="+Inf"` bucket, a bucket whose value is not a number or whose `le` is not one: no reading,
 * a problem instead. Series with different bounds are summed anyway (as PromQL would), with a
 * problem saying the percentiles may be off by a bucket.
 */
export function histogramOf(
  samples: readonly PromSample[],
  bucketName: string,
  filter: Record<string, string>,
  toMs: number,
): HistogramRead {
  const bySeries = new Map<string, Map<number, number>>();
  const problems: string[] = [];
  for (const s of samples) {
    if (s.name !== bucketName || !matches(s.labels, filter)) continue;
    const { le, ...rest } = s.labels;
    const bound = le === '+Inf' || le === 'Inf' ? Infinity : le === undefined || le.trim() === '' ? NaN : Number(le);
    const id = seriesId(rest);
    if (Number.isNaN(bound)) {
      problems.push(
        `${bucketName}${id} has a bucket with le="${le ?? ''}", not a number: server percentiles not computed; expose the histogram's buckets with numeric le labels`,
      );
      continue;
    }
    if (s.raw !== undefined || !Number.isFinite(s.value)) {
      problems.push(
        `${bucketName}${id} le="${le}" has the value "${s.raw ?? String(s.value)}", not a number: server percentiles not computed; fix the target's exporter`,
      );
      continue;
    }
    let buckets = bySeries.get(id);
    if (!buckets) bySeries.set(id, (buckets = new Map()));
    buckets.set(bound, (buckets.get(bound) ?? 0) + s.value);
  }
  if (bySeries.size === 0 || problems.length > 0) return { reading: null, problems };
  for (const [id, buckets] of bySeries) {
    if (!buckets.has(Infinity))
      problems.push(
        `${bucketName}${id} has no le="+Inf" bucket: server percentiles not computed (a histogram's +Inf bucket holds every request); expose the histogram with its +Inf bucket`,
      );
  }
  if (problems.length > 0) return { reading: null, problems };
  const layouts = new Set([...bySeries.values()].map((b) => [...b.keys()].sort((x, y) => x - y).join(',')));
  if (layouts.size > 1)
    problems.push(
      `the ${bySeries.size} series of ${bucketName} have ${layouts.size} different sets of bucket bounds: their sum per le may put a percentile in the wrong bucket; give them the same buckets, or narrow metrics.requests.labels to series that share them`,
    );
  const total = new Map<number, number>();
  for (const buckets of bySeries.values()) for (const [b, v] of buckets) total.set(b, (total.get(b) ?? 0) + v);
  const finite = [...total.keys()].filter((b) => b !== Infinity).sort((x, y) => x - y);
  return {
    reading: {
      boundsMs: finite.map((b) => toMsExact(b, toMs)),
      cumulative: [...finite.map((b) => total.get(b)!), total.get(Infinity)!],
    },
    problems,
  };
}

/** A bound in ms without the float noise of the product (0.004194304 s x 1000 = 4.194304000000001): to the nanosecond. */
export function toMsExact(bound: number, toMs: number): number {
  return Math.round(bound * toMs * 1e6) / 1e6;
}

/** `{k="v",...}` of a series' labels, sorted (empty labels: ''), to name it in a problem. */
export function seriesId(labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? '' : `{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
}

/**
 * Why `filter` matches nothing of `name` (a line with the values the target has, and the fix), or
 * null when something matches or no series of that name exists at all (the caller says that).
 */
export function unmatchedLabels(
  samples: readonly PromSample[],
  name: string,
  filter: Record<string, string>,
  field: string,
): string | null {
  const all = samples.filter((s) => s.name === name);
  if (all.length === 0 || all.some((s) => matches(s.labels, filter))) return null;
  const seen = Object.keys(filter).map((k) => {
    const values = [...new Set(all.map((s) => s.labels[k]).filter((v): v is string => v !== undefined))].sort();
    const shown = values.slice(0, 6).map((v) => JSON.stringify(v));
    return `${k}: ${values.length === 0 ? 'no such label' : shown.join(', ') + (values.length > 6 ? ', ...' : '')}`;
  });
  return `${field} ${seriesId(filter)} match none of the ${all.length} series of ${name} (${seen.join('; ')}); set ${field} to values the target exposes`;
}
