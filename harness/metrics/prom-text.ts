/**
 * Reads Prometheus text exposition (format 0.0.4) into samples. Only what plateau needs: metric
 * name, labels (with \\, \" and \n escapes), value (including NaN and +Inf); comments and
 * timestamps are skipped. See docs/decisions/004-own-prometheus-text-reader.md.
 */

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
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
  const value = parseValue(line.slice(i).trim().split(/\s+/)[0]);
  return value === null ? null : { name, labels, value };
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

function parseValue(s: string | undefined): number | null {
  if (s === undefined || s === '') return null;
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
    if (s.name !== name || !matches(s.labels, filter)) continue;
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
    if (s.name === name && matches(s.labels, filter) && (best === null || s.value > best)) best = s.value;
  return best;
}

function matches(labels: Record<string, string>, filter: Record<string, string>): boolean {
  for (const k in filter) if (labels[k] !== filter[k]) return false;
  return true;
}
