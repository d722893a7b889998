/**
 * Escaping for report.html. Everything that reaches the page as text goes through `esc`, so a
 * target's error message or a config value can never become markup; the page also carries a
 * Content-Security-Policy that allows no script at all, as a second wall.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. Control characters become spaces. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ENTITIES[ch]).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ');
}

/**
 * A cell that reads as a figure: a number with its sign or bound, unit and markers ("≤ 1.50×",
 * "~56.0 ms* (n=250)", "-0.20", "18%"), a step with its attempt ("4 (attempt 2)", "2 (2)"), or
 * nothing ("–", empty). Such cells are right-aligned, as figures are read; the others are text.
 */
const FIGURE = /^(?:|–|[≤≥<>~+\-−]?\s?\d[\d,]*(?:\.\d+)?\s?(?:ms|s|%|×)?\*?(?: \(n=[\d,]+\)| \((?:attempt )?\d+\))?)$/;

/**
 * The columns (0-based) that hold text: most of their cells (of those not blank) are no figure
 * (FIGURE). Most, not any: a column of figures with a word among them ("saturated" in 1 / (1 - ρ))
 * stays aligned with its figures.
 */
export function textColumns(rows: readonly (readonly string[])[]): Set<number> {
  const words = new Map<number, number>();
  const filled = new Map<number, number>();
  for (const r of rows)
    r.forEach((cell, i) => {
      const c = cell.trim();
      if (c === '' || c === '–') return;
      filled.set(i, (filled.get(i) ?? 0) + 1);
      if (!FIGURE.test(c)) words.set(i, (words.get(i) ?? 0) + 1);
    });
  return new Set([...words].filter(([i, n]) => n * 2 > filled.get(i)!).map(([i]) => i));
}

/** Columns past this many are never marked as text (html-style.ts has a rule for each up to it). */
export const TEXT_COLUMNS_MAX = 24;

/** The table's class naming its text columns, 1-based as CSS counts them: ' class="text-1 text-3"', or ''. */
function textClass(rows: readonly (readonly string[])[]): string {
  const cols = [...textColumns(rows)].filter((i) => i < TEXT_COLUMNS_MAX).sort((a, b) => a - b);
  return cols.length === 0 ? '' : ` class="${cols.map((i) => `text-${i + 1}`).join(' ')}"`;
}

/**
 * A table with an escaped header and escaped cells; `cls` picks a CSS class per row. The table's
 * class names its text columns, left-aligned (html-style.ts): figures stay right-aligned, and a
 * column of stage names, statuses or environment keys had been right-aligned with them, hard to
 * read down.
 */
export function htmlTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  cls?: (i: number) => string,
): string {
  const head = `<thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>`;
  const body = rows
    .map((r, i) => {
      const c = cls?.(i);
      return `<tr${c ? ` class="${esc(c)}"` : ''}>${r.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  // in a box that scrolls sideways: on a narrow window a wide table's last columns (the verdict) stay reachable
  return `<div class="table-wrap"><table${textClass(rows)}>${head}<tbody>\n${body}\n</tbody></table></div>`;
}

/** A list of escaped items. */
export function htmlList(items: readonly string[]): string {
  return `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
}

/** A section with an id (fixed by us, never user text) and an escaped heading. */
export function htmlSection(id: string, title: string, body: string): string {
  return `<section id="${esc(id)}">\n<h2>${esc(title)}</h2>\n${body}\n</section>`;
}
