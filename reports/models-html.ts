/** The models section of report.html (text from models-text.ts, escaped for HTML). */
import type { RunResult } from '../analysis/types.ts';
import { esc, htmlSection, htmlTable } from './html-escape.ts';
import { fittedSpan, kneeSentence, modelHeader, modelRows, modelsIntro, uslSentences } from './models-text.ts';
import { rateUnit } from './cells.ts';

/** `uslFigure` is the rendered USL chart (trusted SVG from our renderer), or '' without one. */
export function modelsHtml(run: RunResult, uslFigure: string): string {
  const m = run.models;
  if (!m) return htmlSection('models', 'Models', '<p>Not computed for this run.</p>');
  if (m.little.length === 0)
    return htmlSection('models', 'Models', '<p>No step has throughput and latency to model.</p>');
  const unit = rateUnit(run);
  const sentences = [
    ...uslSentences(m.usl, m.uslNote, fittedSpan(run), unit, m.uslLeftOut),
    ...kneeSentence(run, m),
  ].map((s) => `<p>${esc(s)}</p>`);
  return htmlSection(
    'models',
    'Models',
    [
      `<p>${esc(modelsIntro(m, unit, run.kneeStep))}</p>`,
      htmlTable(modelHeader(unit), modelRows(m, run.kneeStep)),
      ...sentences,
      uslFigure,
    ].join('\n'),
  );
}
