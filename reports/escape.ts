/**
 * Escaping for text that the target or the user controls (error messages, URLs, env values)
 * before it reaches a report.
 */

/**
 * Text safe inside a Markdown table cell (and inline Markdown): an & that could start an entity
 * (&lt; &#60;) becomes &amp; and a < that
 * could open HTML (a tag, a closing tag, a comment, a declaration, an autolink: < before a
 * letter, /, ! or ?) &lt;, backslashes and Markdown punctuation ( | ` * _ [ ] ) are
 * backslash-escaped, and line breaks become <br> so a cell stays on its row (and no line of it
 * starts with > or #). Comparisons stay readable in the raw file: "lag 25 ms > 20 ms", "0.89 < 0.90".
 */
export function mdCell(s: string): string {
  return s
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '&amp;')
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
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
