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

/** A table with an escaped header and escaped cells; `cls` picks a CSS class per row. */
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
  return `<div class="table-wrap"><table>${head}<tbody>\n${body}\n</tbody></table></div>`;
}

/** A list of escaped items. */
export function htmlList(items: readonly string[]): string {
  return `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
}

/** A section with an id (fixed by us, never user text) and an escaped heading. */
export function htmlSection(id: string, title: string, body: string): string {
  return `<section id="${esc(id)}">\n<h2>${esc(title)}</h2>\n${body}\n</section>`;
}
