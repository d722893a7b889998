/**
 * The traffic mix and the figures by name in report.html (text from names-text.ts, escaped for
 * HTML), as report.md has them, with the latency chart by name.
 */
import type { RunResult } from '../analysis/types.ts';
import { esc, htmlSection, htmlTable } from './html-escape.ts';
import { textSectionHtml } from './html-sections.ts';
import {
  anyNameUnreliable,
  NAME_HEADER,
  NAME_NOTE,
  namedSteps,
  nameRows,
  namesKneeSentence,
  nameStepTitle,
  nameUnreliableNote,
  trafficText,
} from './names-text.ts';

/** The mix the run offered and what sized its VUs; '' when the run did not record its traffic. */
export function trafficHtml(run: RunResult): string {
  return textSectionHtml('traffic', trafficText(run));
}

/** `figure` is the rendered chart by name (trusted SVG from our renderer), or ''. '' without names. */
export function namesHtml(run: RunResult, figure: string): string {
  const steps = namedSteps(run);
  if (steps.length === 0) return '';
  const finding = namesKneeSentence(run);
  const parts = [
    ...(finding === null ? [] : [`<p class="finding"><strong>${esc(finding)}</strong></p>`]),
    figure,
    `<p class="note">${esc(NAME_NOTE)}</p>`,
    ...steps.map((s) => `<h3>${esc(nameStepTitle(s))}</h3>\n${htmlTable(NAME_HEADER, nameRows(run, s))}`),
    ...(anyNameUnreliable(run) ? [`<p class="note">${esc(nameUnreliableNote(run))}</p>`] : []),
  ].filter((p) => p !== '');
  return htmlSection('names', 'By name', parts.join('\n'));
}
