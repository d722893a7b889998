/**
 * report.md: the run for a human. Capacity and the stop reason first, then the traffic it offered
 * (when recorded), how to read the numbers, then the evidence (stages, generator sizing, steps and
 * their figures by name, errors, warnings, environment).
 * Every string that came from the target, the config or the environment goes through mdCell.
 */
import { fmtInt } from '../analysis/format.ts';
import { howToReadTerms, termText } from './how-to-read.ts';
import type { RunResult } from '../analysis/types.ts';
import { colocationText, durationText, rateUnit, rttText, stageDetailText } from './cells.ts';
import { capacityText, cutShortText, peakText } from './headline-text.ts';
import { generatorCells, generatorHeader, generatorNote } from './generator-cells.ts';
import { mdCell } from './escape.ts';
import { namesSection, trafficSection } from './markdown-names.ts';
import { errorsSection, mdTable, stepsSection } from './markdown-steps.ts';
import { modelsSection } from './models-markdown.ts';
import { classificationSection, overloadSection, serverSection } from './markdown-verdicts.ts';
import { sloSection } from './slo-markdown.ts';
import { capacityCaveats, warningTexts } from './warning-text.ts';
import { warningsBrief } from './warnings-brief.ts';
import { downstreamsSection } from './markdown-downstreams.ts';
import { distributionSection } from './markdown-distribution.ts';

function headerSection(run: RunResult): string[] {
  const out = [`# plateau run ${mdCell(run.runId)}`, ''];
  const cut = cutShortText(run);
  if (cut !== null) out.push(`> **CUT SHORT**: ${mdCell(cut)}`, '');
  else if (run.interrupted) {
    out.push(
      '> **INTERRUPTED**: the run was stopped before the stop rule ended it; later steps were not run, so capacity is at best a lower bound.',
      '',
    );
  }
  out.push(
    `**Capacity: ${mdCell(capacityText(run))}**`,
    '',
    ...capacityCaveats(run).flatMap((c) => [`> **But** ${mdCell(c)}`, '']),
    `**Stop reason: ${mdCell(run.stopReason)}**: ${mdCell(run.stopDetail)}`,
    '',
    `Peak: ${mdCell(peakText(run))}. Target: ${mdCell(run.target)}. Engine: ${mdCell(run.engine)}. Started: ${mdCell(run.startedAt)}.`,
  );
  // the warnings' count and topics, linked to their section, for a reader who stops at the top
  const brief = warningsBrief(run);
  if (brief !== null) out.push('', `**[${mdCell(brief.label)}](#warnings)**: ${mdCell(brief.text)}`);
  return out;
}

function howToReadSection(run: RunResult): string[] {
  return ['## How to read this', '', ...howToReadTerms(run).map((t) => `- ${termText(t, (x) => `**${x}**`)}`)];
}

function stagesSection(run: RunResult): string[] {
  if (run.stages.length === 0) return ['## Stages', '', 'No stage outcomes recorded.'];
  const rows = run.stages.map((s) => [s.name, s.status, durationText(s.durationMs), stageDetailText(s)]);
  return ['## Stages', '', ...mdTable(['Stage', 'Status', 'Duration', 'Detail'], rows)];
}

function generatorSection(run: RunResult): string[] {
  const { vus } = run;
  const colocated = colocationText(run);
  const rttLine = `- ${rttText(run)}`;
  return [
    '## Load generator',
    '',
    `- VUs: ${fmtInt(vus.preAllocatedVUs)} pre-allocated, at most ${fmtInt(vus.maxVUs)}: ${mdCell(vus.reason)}`,
    rttLine,
    ...(colocated ? [`- ${mdCell(colocated)}`] : []),
    ...(run.steps.length > 0
      ? [
          '',
          generatorNote(run),
          '',
          ...mdTable(
            generatorHeader(run),
            run.steps.map((s) => generatorCells(s, run.generatorBusyMax)),
          ),
        ]
      : []),
  ];
}

function warningsSection(run: RunResult): string[] {
  if (run.warnings.length === 0) return ['## Warnings', '', 'None.'];
  return ['## Warnings', '', ...warningTexts(run).map((w) => `- ${mdCell(w)}`)];
}

function environmentSection(run: RunResult): string[] {
  const entries = Object.entries(run.environment);
  if (entries.length === 0) return ['## Environment', '', 'Not recorded.'];
  return ['## Environment', '', ...mdTable(['Key', 'Value'], entries)];
}

/** The whole Markdown report. */
export function renderMarkdown(run: RunResult): string {
  const sections = [
    headerSection(run),
    sloSection(run),
    trafficSection(run),
    howToReadSection(run),
    stagesSection(run),
    generatorSection(run),
    stepsSection(run),
    namesSection(run),
    overloadSection(run),
    classificationSection(run),
    serverSection(run),
    downstreamsSection(run),
    distributionSection(run),
    errorsSection(run),
    modelsSection(run),
    warningsSection(run),
    environmentSection(run),
  ];
  return `${sections
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n')}\n`;
}
