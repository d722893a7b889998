/**
 * The traffic mix and the figures by name in report.html (text from names-text.ts, escaped for
 * HTML), as report.md has them, with the latency chart by name.
 */
import { firstDegradingName } from '../analysis/names-knee.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { esc, htmlSection, htmlTable } from './html-escape.ts';
import { textSectionHtml } from './html-sections.ts';
import {
  anyNameUnreliable,
  NAME_HEADER,
  nameNote,
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
  const opened = openedSteps(run);
  const parts = [
    ...(finding === null ? [] : [`<p class="finding"><strong>${esc(finding)}</strong></p>`]),
    figure,
    `<p class="note">${esc(nameNote(run))}</p>`,
    ...steps.map((s) => {
      const table = htmlTable(NAME_HEADER, nameRows(run, s));
      return `<details class="names-step"${opened.has(s) ? ' open' : ''}>\n<summary>${esc(nameStepTitle(s, run.rules.rateUnit))}</summary>\n${table}\n</details>`;
    }),
    ...(anyNameUnreliable(run) ? [`<p class="note">${esc(nameUnreliableNote(run))}</p>`] : []),
  ].filter((p) => p !== '');
  return htmlSection('names', 'By name', parts.join('\n'));
}

/**
 * The steps whose table by name is open on the page: every attempt of the knee's step and of the
 * step after it (where a name's degradation shows), or without a knee every attempt of the last
 * step run; and the two attempts the finding cites (names-text.ts namesKneeSentence: where the
 * first name to degrade grew, and its baseline), whose tables a printed page showed folded (CSS
 * opens a folded table in print only where the browser has ::details-content: html-style.ts).
 * The others, one a step, are folded under their titles (a run of 18 steps made 18 tables of the
 * same rows). kneeStep is a step's number (StepResult.index), not a position in steps: a rerun
 * before the knee shifts the positions.
 */
export function openedSteps(run: RunResult): Set<StepResult> {
  const steps = run.steps;
  const at = run.kneeStep ?? steps.at(-1)?.index;
  if (at === undefined) return new Set();
  const next = run.kneeStep === null ? at : at + 1;
  const f = firstDegradingName(steps, run.kneeStep);
  const cited =
    f.kind === 'grew'
      ? [
          [f.first.index, f.first.attempt],
          [f.first.baseIndex, f.first.baseAttempt],
        ]
      : [];
  const isCited = (s: StepResult) =>
    cited.some(([index, attempt]) => s.index === index && (s.attempt ?? 1) === attempt);
  return new Set(steps.filter((s) => s.index === at || s.index === next || isCited(s)));
}
