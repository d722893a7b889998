/**
 * Escaping for text that the target or the user controls (error messages, URLs, env values)
 * before it reaches a report.
 */

/**
 * Text safe inside a Markdown table cell (and inline Markdown): HTML-significant characters
 * become entities (& < > "), backslashes and Markdown punctuation ( | ` * _ [ ] ) are
 * backslash-escaped, and line breaks become <br> so a cell stays on its row.
 */
export function mdCell(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/([\\|`*_[\]])/g, '\\$1')
    .replace(/\r\n|\r|\n/g, '<br>');
}

/**
 * A CSV cell that a spreadsheet will not run as a formula: a leading =, +, -, @, tab or CR gets a
 * single quote in front (OWASP's CSV injection advice). Quoting is left to the CSV writer.
 */
export function csvSafe(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}
