/** The models section of report.md (text from models-text.ts, escaped for Markdown). */
import type { RunResult } from '../analysis/types.ts';
import { mdCell } from './escape.ts';
import { mdTable } from './markdown-steps.ts';
import { fittedSpan, kneeSentence, modelHeader, modelRows, modelsIntro, uslSentences } from './models-text.ts';
import { rateUnit } from './cells.ts';

export function modelsSection(run: RunResult): string[] {
  const m = run.models;
  if (!m) return ['## Models', '', 'Not computed for this run.'];
  if (m.little.length === 0) return ['## Models', '', 'No step has throughput and latency to model.'];
  const unit = rateUnit(run);
  return [
    '## Models',
    '',
    mdCell(modelsIntro(m, unit, run.kneeStep)),
    '',
    ...mdTable(modelHeader(unit), modelRows(m, run.kneeStep)),
    '',
    ...[...uslSentences(m.usl, m.uslNote, fittedSpan(run), unit, m.uslLeftOut), ...kneeSentence(run, m)]
      .flatMap((s) => [mdCell(s), ''])
      .slice(0, -1),
  ];
}
