import { TEXT_COLUMNS_MAX } from './html-escape.ts';

/**
 * Below this window width (a phone's), charts and tables keep their own width and scroll sideways;
 * on screen only: a printed page is about as narrow, and a chart kept wider than it was cut.
 */
export const NARROW_PX = 720;

/**
 * The "holds" verdict's text colour: the charts' bluish green (#009E73, theme.ts VERDICT_COLOR) is
 * 3.4:1 on white, under WCAG AA's 4.5:1 for text; this darker one of its hue is 5.3:1. The charts
 * keep theirs: a point or a bar needs 3:1.
 */
export const OK_TEXT = '#007A5A';

/** The rule that left-aligns the columns a table's class names: "text-2" its second. */
const TEXT_COLUMN_RULE = `${Array.from(
  { length: TEXT_COLUMNS_MAX },
  (_, i) => `.text-${i + 1} :is(th, td):nth-child(${i + 1})`,
).join(', ')} { text-align: left; }`;

/** The inline stylesheet of report.html (no web fonts: the page must render offline). */
export const HTML_STYLE = `
:root { --ok-text: ${OK_TEXT}; --bad: #CC3311; --muted: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; background: #fafafa; }
main { max-width: 1040px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 22px; margin: 8px 0; word-break: break-all; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.capacity { font-size: 20px; margin: 6px 0; }
.meta, .note, figcaption, footer { color: var(--muted); font-size: 12px; }
.banner { background: #fdecea; border-left: 4px solid var(--bad); padding: 8px 12px; font-weight: bold; }
nav { margin: 12px 0; font-size: 13px; }
nav a { color: #0072B2; text-decoration: none; }
code { background: #f3f3f3; padding: 0 3px; word-break: break-all; }
.table-wrap { overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { border: 1px solid var(--line); padding: 3px 6px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; }
/* figures right-aligned, text left: a table's class names its text columns (html-escape.ts htmlTable) */
${TEXT_COLUMN_RULE}
#errors td:last-child { word-break: break-word; max-width: 360px; white-space: pre-line; }
h3 { font-size: 14px; margin: 16px 0 4px; }
details.names-step summary { font-size: 14px; font-weight: bold; margin: 10px 0 4px; cursor: pointer; }
/* a name breaks inside a word only past 7em (a URL): with nothing to hold it, the table gave the
   column its narrowest and "checkout" stood as "checko" over "ut" in an 800 px window */
#names td:first-child, #names th:first-child, #traffic td:first-child, #traffic th:first-child { text-align: left; word-break: break-word; }
#names td:first-child, #traffic td:first-child { min-width: 7em; }
tr.verdict-holds td:last-child { color: var(--ok-text); font-weight: bold; }
tr.verdict-fails td:last-child { color: var(--bad); font-weight: bold; }
tr.set-aside td { color: var(--muted); }
tr.set-aside td:last-child { color: var(--muted); font-weight: normal; font-style: italic; }
figure { margin: 8px 0 16px; }
figure svg { max-width: 100%; height: auto; display: block; }
.chart-scroll { overflow-x: auto; }
@media screen and (max-width: ${NARROW_PX}px) {
  main { padding: 12px 12px 32px; }
  /* a chart keeps its drawn size and scrolls sideways: shrunk to a phone's width its 11 px text was 5 px */
  figure svg { max-width: none; }
  /* a wide table scrolls in its box (.table-wrap) at its own width, not squeezed to the page's: a
     step's row stood five lines tall; the last column's text (a verdict, a detail) still wraps */
  th, td { white-space: nowrap; }
  td:last-child, th:last-child, #names td:first-child, #traffic td:first-child { white-space: normal; min-width: 12em; }
}
@media print {
  /* a folded table prints: the findings cite its figures. Only where the browser has
     ::details-content (Chromium since 131: Chromium 150's print checked); elsewhere the tables the
     finding cites print because they are open in the page itself (html-names.ts openedSteps) */
  details::details-content { content-visibility: visible; display: block; }
  nav { display: none; }
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  .chart-scroll, .table-wrap { overflow: visible; }
  figure, tr { break-inside: avoid; }
  h2, h3, summary { break-after: avoid; }
}
`;
