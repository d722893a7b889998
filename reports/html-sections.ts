/**
 * The text sections of report.html: the headline, steps, overload shape, classified steps,
 * server-side view, errors, warnings, stages, generator and environment. Same figures and wording
 * as report.md (cells.ts, markdown-verdicts.ts' text builders), escaped for HTML.
 */
import { fmtInt, fmtPercent, stepNo } from '../analysis/format.ts';
import { requiredSamples } from '../analysis/percentiles.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import {
  anyUnreliable,
  colocationText,
  countsText,
  durationText,
  errorRows,
  rttText,
  samplesText,
  stepCell,
  stepHeader,
  stepCells,
  stageDetailText,
  verdictBrief,
} from './cells.ts';
import { capacityText, cutShortText, peakText } from './headline-text.ts';
import { generatorCells, generatorHeader, generatorNote } from './generator-cells.ts';
import { howToReadTerms, termText } from './how-to-read.ts';
import { capacityCaveats, warningTexts } from './warning-text.ts';
import { warningsBrief } from './warnings-brief.ts';
import { esc, htmlList, htmlSection, htmlTable } from './html-escape.ts';
import { classificationText, overloadText, serverText, type TextSection } from './markdown-verdicts.ts';
import { serverLatencyTexts } from './server-latency.ts';
import { errorHeaders } from './markdown-steps.ts';

/** Banners for a run whose capacity cannot be taken at face value. */
function banners(run: RunResult): string[] {
  const out: string[] = [];
  const cut = cutShortText(run);
  if (cut !== null) out.push(`CUT SHORT: ${cut}`);
  else if (run.interrupted)
    out.push('INTERRUPTED: the run was stopped before the stop rule ended it; capacity is at best a lower bound.');
  if (run.generatorBound)
    out.push("GENERATOR-BOUND: the load generator, not the target, was the limit; this is not the target's capacity.");
  if (run.contaminated) out.push('CONTAMINATED: something outside the test changed the target during a judged step.');
  return out.map((b) => `<p class="banner">${esc(b)}</p>`);
}

export function headerHtml(run: RunResult): string {
  return [
    `<header>\n<h1>plateau run ${esc(run.runId)}</h1>`,
    ...banners(run),
    `<p class="capacity">Capacity: <strong>${esc(capacityText(run))}</strong></p>`,
    ...capacityCaveats(run).map((c) => `<p class="banner">But ${esc(c)}</p>`),
    `<p><strong>Stop reason: ${esc(run.stopReason)}</strong>: ${esc(run.stopDetail)}</p>`,
    `<p class="meta">Peak ${esc(peakText(run))} · target <code>${esc(run.target)}</code> · engine ${esc(run.engine)} · started ${esc(run.startedAt)}</p>`,
    colocationHtml(run),
    ...warningsBriefHtml(run),
    '</header>',
  ].join('\n');
}

/** The warnings' count and topics under the headline (warnings-brief.ts), linked to their section; none without warnings. */
function warningsBriefHtml(run: RunResult): string[] {
  const brief = warningsBrief(run);
  return brief === null
    ? []
    : [`<p><strong><a href="#warnings">${esc(brief.label)}</a></strong>: ${esc(brief.text)}</p>`];
}

/** What the report's terms mean, as report.md has it (a `code` span in a meaning becomes <code>). */
export function howToReadHtml(run: RunResult): string {
  const items = howToReadTerms(run).map(
    (t) =>
      `<li>${termText({ ...t, term: esc(t.term), meaning: esc(t.meaning) }, (x) => `<strong>${x}</strong>`).replace(/`([^`]+)`/g, '<code>$1</code>')}</li>`,
  );
  return htmlSection('howto', 'How to read this', `<ul>${items.join('')}</ul>`);
}

/** The target shares the generator's machine: said under the headline, where the capacity is read. */
function colocationHtml(run: RunResult): string {
  const c = colocationText(run);
  return c === null ? '' : `<p class="note"><strong>Note</strong>: ${esc(c)}</p>`;
}

/** The row's class: its verdict, and "set-aside" for an attempt that did not decide (transient, contaminated). */
function verdictClass(s: StepResult): string {
  return s.transient || s.contaminated ? `verdict-${s.verdict} set-aside` : `verdict-${s.verdict}`;
}

export function stepsHtml(run: RunResult): string {
  const parts = [
    htmlTable(
      stepHeader(run),
      run.steps.map((s) => stepCells(s, run.rules)),
      (i) => verdictClass(run.steps[i]),
    ),
  ];
  if (anyUnreliable(run)) {
    parts.push(
      `<p class="note">* unreliable: fewer than ${esc(fmtInt(run.rules.minTailSamples))} samples lie beyond this percentile (p99 needs ${esc(fmtInt(requiredSamples(99, run.rules.minTailSamples)))} samples, p99.9 ${esc(fmtInt(requiredSamples(99.9, run.rules.minTailSamples)))}); shown for diagnosis only.</p>`,
    );
  }
  const failing = run.steps.filter((s) => s.reasons.length > 0);
  if (failing.length > 0)
    parts.push(htmlList(failing.map((s) => `step ${stepNo(s.index)} (${verdictBrief(s)}): ${s.reasons.join('; ')}`)));
  return htmlSection('steps', 'Steps', parts.join('\n'));
}

/** A text section (markdown-verdicts.ts) as HTML, every string escaped; '' when the section is empty. */
export function textSectionHtml(id: string, t: TextSection | null): string {
  if (t === null) return '';
  const parts = t.paragraphs.map(
    (p) => `<p>${p.lead === undefined ? '' : `<strong>${esc(p.lead)}</strong>`}${esc(p.text)}</p>`,
  );
  if (t.table) parts.push(htmlTable(t.table.header, t.table.rows));
  if (t.items && t.items.length > 0) parts.push(htmlList(t.items));
  return htmlSection(id, t.title, parts.join('\n'));
}

/** The overload shape past the knee, as report.md has it; '' when there is none. */
export function overloadHtml(run: RunResult): string {
  return textSectionHtml('overload', overloadText(run));
}

/** How each failed or rerun step was classified; '' when no step was. */
export function classificationHtml(run: RunResult): string {
  return textSectionHtml('classification', classificationText(run));
}

/** The target's own view of each steady window; '' when its metrics were not read. */
export function serverHtml(run: RunResult): string {
  return [
    textSectionHtml('server', serverText(run)),
    ...serverLatencyTexts(run).map((t) => textSectionHtml(t.id, t)),
  ].join('\n');
}

export function errorsHtml(run: RunResult): string {
  // one message a line (#errors td:last-child is pre-line)
  const rows = errorRows(run);
  if (rows.length === 0) return htmlSection('errors', 'Errors', '<p>No failed requests in any steady window.</p>');
  return htmlSection(
    'errors',
    'Errors',
    htmlTable([...errorHeaders(run), 'Sample messages (as the target sent them)'], rows),
  );
}

export function warningsHtml(run: RunResult): string {
  return htmlSection('warnings', 'Warnings', run.warnings.length === 0 ? '<p>None.</p>' : htmlList(warningTexts(run)));
}

export function stagesHtml(run: RunResult): string {
  if (run.stages.length === 0) return htmlSection('stages', 'Stages', '<p>No stage outcomes recorded.</p>');
  return htmlSection(
    'stages',
    'Stages',
    htmlTable(
      ['Stage', 'Status', 'Duration', 'Detail'],
      run.stages.map((s) => [s.name, s.status, durationText(s.durationMs), stageDetailText(s)]),
    ),
  );
}

export function generatorHtml(run: RunResult): string {
  const { vus } = run;
  const colocated = colocationText(run);
  const parts = [
    htmlList([
      `VUs: ${fmtInt(vus.preAllocatedVUs)} pre-allocated, at most ${fmtInt(vus.maxVUs)}: ${vus.reason}`,
      rttText(run),
      ...(colocated ? [colocated] : []),
    ]),
  ];
  if (run.steps.length > 0)
    parts.push(
      `<p class="note">${esc(generatorNote(run))}</p>`,
      htmlTable(
        generatorHeader(run),
        run.steps.map((s) => generatorCells(s, run.generatorBusyMax)),
      ),
    );
  return htmlSection('generator', 'Load generator', parts.join('\n'));
}

export function environmentHtml(run: RunResult): string {
  const entries = Object.entries(run.environment);
  return htmlSection(
    'environment',
    'Environment',
    entries.length === 0 ? '<p>Not recorded.</p>' : htmlTable(['Key', 'Value'], entries),
  );
}
