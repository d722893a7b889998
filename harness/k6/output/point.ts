/**
 * One k6 sample, reduced to what plateau reads (K6Point, K6Tags), and the plain reading of a k6
 * `--out json` line with JSON.parse (parseJsonLineSlow): the reading of every line the fast scan
 * (point-scan.ts, where the parser's entry parseJsonLine is) declines, and the reference
 * test/k6-point.test.ts holds the scan to. Apart from the scan, which is most of the parser's code
 * and all of its speed.
 */
import { parseRfc3339Ms } from './time.ts';

/** The tags plateau reads; the rest (method, custom tags other than plateau's) are not kept. */
export interface K6Tags {
  scenario?: string;
  /** The request's name (k6 sets it to the URL when the script does not), or a plateau_arrival's entry. */
  name?: string;
  status?: string;
  error_code?: string;
  expected_response?: string;
  error?: string;
  check?: string;
  /** The request's URL: read only where it has no name (an import says when several URLs had none). */
  url?: string;
  /** "::setup" / "::teardown" mark samples outside any scenario. */
  group?: string;
  /** plateau_arrival only (custom tags of plateau's k6 runtime): 'ok' or the arrival's ErrorKind. */
  outcome?: string;
  /** plateau_arrival only: 'true' when the entry is a transaction (several requests). */
  transaction?: string;
  /** plateau_check_failed only: 'other' when the check could not be given what it read (verdict.ts checkFailureKind). */
  kind?: string;
  /**
   * The VU and its iteration, when k6 ran with them in `--system-tags` (not by default): a tag up
   * to v0.40, metadata since v0.41 (read into these fields). Together they name the iteration a
   * request belongs to (bucketizer.ts: exact iteration outcomes).
   */
  vu?: string;
  iter?: string;
}

export const KEPT_TAGS = [
  'scenario',
  'name',
  'url',
  'status',
  'error_code',
  'expected_response',
  'error',
  'check',
  'group',
  'outcome',
  'transaction',
  'kind',
  'vu',
  'iter',
] as const;

export interface K6Point {
  metric: string;
  /** Epoch ms, with the sub-millisecond digits k6 wrote. */
  timeMs: number;
  value: number;
  tags: K6Tags;
}

/** What a line was: a point, a line to skip (Metric definitions, blank), or not k6 output. */
export type LineResult = K6Point | 'skip' | 'bad';

interface RawLine {
  type?: unknown;
  metric?: unknown;
  data?: {
    time?: unknown;
    value?: unknown;
    tags?: Record<string, unknown> | null;
    metadata?: Record<string, unknown> | null;
  };
}

/** The plain reading, JSON.parse: every line the fast path declines, and the tests' reference. */
export function parseJsonLineSlow(line: string): LineResult {
  let o: RawLine;
  try {
    o = JSON.parse(line) as RawLine;
  } catch {
    return line.trim() === '' ? 'skip' : 'bad';
  }
  if (!o || typeof o !== 'object') return 'bad';
  if (o.type !== 'Point') return o.type === 'Metric' ? 'skip' : 'bad';
  const d = o.data;
  if (typeof o.metric !== 'string' || !d || typeof d.time !== 'string') return 'bad';
  const value = typeof d.value === 'number' ? d.value : Number(d.value);
  const timeMs = parseRfc3339Ms(d.time);
  if (Number.isNaN(value) || Number.isNaN(timeMs)) return 'bad';
  const tags: K6Tags = {};
  for (const k of KEPT_TAGS) {
    const v = d.tags?.[k];
    if (typeof v === 'string') tags[k] = v;
  }
  for (const k of ['vu', 'iter'] as const) {
    const v = d.metadata?.[k];
    if (typeof v === 'string') tags[k] = v;
  }
  return { metric: o.metric, timeMs, value, tags };
}
