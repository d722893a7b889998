/**
 * k6's `--out csv` rows to K6Points. The header names the columns (FORMAT-NOTES.md 2): the tag
 * columns depend on the enabled system tags and on the version (`metadata` since v0.41), so
 * columns are found by name, never by position. Go's encoding/csv quotes a field only when it
 * must (comma, quote, newline), so a quoted field may span lines: a record is complete when its
 * quotes balance.
 */
import { KEPT_TAGS, type K6Point, type K6Tags, type LineResult } from './point.ts';
import { parseCsvTimeMs } from './time.ts';

export class CsvRows {
  private columns: { metric: number; time: number; value: number; tags: [keyof K6Tags, number][] } | null = null;
  private pending = '';

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
    const at = (name: string) => cells.indexOf(name);
    if (at('metric_name') === -1 || at('timestamp') === -1 || at('metric_value') === -1) return 'bad';
    this.columns = {
      metric: at('metric_name'),
      time: at('timestamp'),
      value: at('metric_value'),
      tags: KEPT_TAGS.map((k) => [k, at(k)] as [keyof K6Tags, number]).filter(([, i]) => i !== -1),
    };
    return 'skip';
  }

  private row(cells: string[]): LineResult {
    const c = this.columns!;
    const timeMs = parseCsvTimeMs(cells[c.time] ?? '');
    const value = Number(cells[c.value]);
    const metric = cells[c.metric];
    if (!metric || Number.isNaN(timeMs) || Number.isNaN(value)) return 'bad';
    const tags: K6Tags = {};
    for (const [k, i] of c.tags) {
      const v = cells[i];
      if (v) tags[k] = v;
    }
    const p: K6Point = { metric, timeMs, value, tags };
    return p;
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
