/**
 * k6's `--out csv` rows to K6Points. The header names the columns (FORMAT-NOTES.md 2): the tag
 * columns depend on the enabled system tags and on the version (`metadata` since v0.41), so
 * columns are found by name, never by position. Go's encoding/csv quotes a field only when it
 * must (comma, quote, newline), so a quoted field may span lines: a record is complete when its
 * quotes balance. Custom tags have no column: k6 writes them into `extra_tags` as `k=v&k2=v2`
 * (plateau_arrival's `outcome` and `transaction` are read from there); since v0.41 the VU and
 * iteration, when enabled, are in a last column, `metadata`, written the same way.
 *
 * k6's default timeFormat (`unix`) and `rfc3339` stamp whole seconds: `wholeSeconds` says so
 * (from the first row; k6 writes one format per file), since a sample stamped S happened somewhere
 * in [S, S + 1 s) and what is computed from its time must allow for it (bucketizer.ts).
 */
import { KEPT_TAGS, type K6Point, type K6Tags, type LineResult } from './point.ts';
import { parseCsvTimeMs } from './time.ts';

interface Columns {
  metric: number;
  time: number;
  value: number;
  tags: [keyof K6Tags, number][];
  /** The `extra_tags` column, -1 when absent, and the kept tags that have no column of their own. */
  extra: number;
  extraKeys: ReadonlySet<string>;
  /** The `metadata` column (v0.41+, `k=v&k2=v2` as extra_tags): vu and iter, when enabled; -1 when absent. */
  metadata: number;
  /** The header's cells: k6 writes every column on every row, so a row with fewer is torn (a killed run's last). */
  width: number;
}

/** The columns every sample needs: its metric, its time and its value. */
const REQUIRED_COLUMNS = ['metric_name', 'timestamp', 'metric_value'];
/** Other columns k6 writes, which mark a line as its header: the tags kept, and the rest. */
const KNOWN_COLUMNS = new Set<string>([...KEPT_TAGS, 'method', 'proto', 'extra_tags', 'metadata']);
/** A k6 metric's name, as a row's first cell. */
const K6_METRIC =
  /^(http_req\w*|iterations?\w*|vus(_max)?|data_(sent|received)|checks|dropped_iterations|group_duration)$/;

export class CsvRows {
  private columns: Columns | null = null;
  private pending = '';
  /** Lines tried as the header (while none was k6's). */
  private headerTries = 0;
  /** The timestamps are whole seconds (timeFormat unix or rfc3339); null before the first row. */
  wholeSeconds: boolean | null = null;
  /**
   * Why the first line is no header k6 writes, when it looks like one with a column missing or
   * like a row of one: what ingest says in place of "not k6 output"; null otherwise.
   */
  headerProblem: string | null = null;
  /**
   * The first line's cells when it is a CSV line of 2 or more that names none of k6's columns (a
   * JMeter JTL's `timeStamp,elapsed,label,...`): another tool's output, not k6's; null otherwise.
   */
  foreignHeader: string[] | null = null;

  /** A header k6 writes was read: the file is k6's CSV output, whatever its rows hold. */
  get hasHeader(): boolean {
    return this.columns !== null;
  }

  /** A record left open at the end: its quoted field never closed (k6 was killed while writing it). */
  get open(): boolean {
    return this.pending !== '';
  }

  /** One physical line in; a point, 'skip' (header, blank, record continued) or 'bad' out. */
  push(line: string): LineResult {
    const text = this.pending ? `${this.pending}\n${line}` : line;
    if (text.indexOf('"') !== -1 && quoteCount(text) % 2 === 1) {
      this.pending = text;
      return 'skip';
    }
    this.pending = '';
    if (text.length === 0) return 'skip';
    const cells = text.indexOf('"') === -1 ? text.split(',') : splitQuoted(text);
    if (!this.columns) return this.header(cells);
    return this.row(cells);
  }

  private header(cells: string[]): LineResult {
    this.headerTries++;
    const at = (name: string) => cells.indexOf(name);
    const missing = REQUIRED_COLUMNS.filter((c) => at(c) === -1);
    if (missing.length > 0) {
      if (missing.length < REQUIRED_COLUMNS.length || cells.some((c) => KNOWN_COLUMNS.has(c)))
        this.headerProblem = `its header has no ${missing.map((c) => `\`${c}\``).join(', ')} column (it has ${cells.slice(0, 8).join(', ')}${cells.length > 8 ? ', ...' : ''})`;
      else if (K6_METRIC.test(cells[0] ?? '') && cells.length >= 3)
        this.headerProblem = `its first line is a row (${cells[0]}, ${cells[1]}, ...), not the header k6 writes first (metric_name,timestamp,metric_value,...)`;
      else if (cells.length >= 2 && this.headerTries === 1) this.foreignHeader = cells;
      return 'bad';
    }
    this.columns = {
      metric: at('metric_name'),
      time: at('timestamp'),
      value: at('metric_value'),
      tags: KEPT_TAGS.map((k) => [k, at(k)] as [keyof K6Tags, number]).filter(([, i]) => i !== -1),
      extra: at('extra_tags'),
      extraKeys: new Set(KEPT_TAGS.filter((k) => at(k) === -1)),
      metadata: at('metadata'),
      width: cells.length,
    };
    return 'skip';
  }

  private row(cells: string[]): LineResult {
    const c = this.columns!;
    // a row cut short would read as a sample with made-up tags (a name 'wo' from 'work', a failure)
    if (cells.length < c.width) return 'bad';
    const time = cells[c.time] ?? '';
    const timeMs = parseCsvTimeMs(time);
    const value = Number(cells[c.value]);
    const metric = cells[c.metric];
    if (!metric || Number.isNaN(timeMs) || Number.isNaN(value)) return 'bad';
    this.wholeSeconds ??= isWholeSecondFormat(time);
    const tags: K6Tags = {};
    for (const [k, i] of c.tags) {
      const v = cells[i];
      if (v) tags[k] = v;
    }
    if (c.extra !== -1 && cells[c.extra]) extraTags(cells[c.extra], c.extraKeys, tags);
    if (c.metadata !== -1 && cells[c.metadata]) extraTags(cells[c.metadata], ITERATION_KEYS, tags);
    const p: K6Point = { metric, timeMs, value, tags };
    return p;
  }
}

/** What the metadata column gives (point.ts K6Tags): the VU and its iteration. */
const ITERATION_KEYS: ReadonlySet<string> = new Set(['vu', 'iter']);

/** `unix` (up to 11 digits: seconds) or `rfc3339` (no fraction); not unix_milli/micro/nano or rfc3339_nano. */
function isWholeSecondFormat(time: string): boolean {
  return /^\d{1,11}$/.test(time) || (time.length > 10 && time.charCodeAt(4) === 45 /* - */ && !time.includes('.'));
}

/**
 * The kept tags among `k=v&k2=v2` (k6 escapes nothing there: a value holding `&` or `=` is cut at
 * it, which plateau's own values, an ErrorKind and 'true'/'false', never hold).
 */
function extraTags(cell: string, keys: ReadonlySet<string>, tags: K6Tags): void {
  for (const pair of cell.split('&')) {
    const eq = pair.indexOf('=');
    const k = eq === -1 ? '' : pair.slice(0, eq);
    if (keys.has(k)) tags[k as keyof K6Tags] = pair.slice(eq + 1);
  }
}

function quoteCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf('"'); i !== -1; i = s.indexOf('"', i + 1)) n++;
  return n;
}

/** RFC 4180 fields: `"` opens a quoted field, `""` inside it is one quote. */
function splitQuoted(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (s[i] === '"') {
      let v = '';
      let j = i + 1;
      for (;;) {
        const q = s.indexOf('"', j);
        if (q === -1) {
          v += s.slice(j);
          j = s.length;
          break;
        }
        v += s.slice(j, q);
        if (s[q + 1] === '"') {
          v += '"';
          j = q + 2;
          continue;
        }
        j = q + 1;
        break;
      }
      out.push(v);
      i = j;
    } else {
      const comma = s.indexOf(',', i);
      out.push(s.slice(i, comma === -1 ? s.length : comma));
      i = comma === -1 ? s.length : comma;
    }
    if (i >= s.length) return out;
    i++; // the comma
    if (i === s.length) {
      out.push('');
      return out;
    }
  }
}
