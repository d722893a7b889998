/**
 * The registry of file renderers: each is a pure function of a RunResult. Adding a format is
 * adding one file and one line here.
 */
import type { RunResult } from '../analysis/types.ts';
import { renderMarkdown } from './markdown.ts';
import { renderHtmlFiles, type RenderedFile } from './html.ts';
import { renderStepsByNameCsv } from './steps-by-name-csv.ts';
import { renderStepsCsv } from './steps-csv.ts';
import { renderSummaryJson } from './summary-json.ts';

export interface Renderer {
  /** File name inside the run directory. */
  file: string;
  render(run: RunResult): string;
}

export const renderers: Renderer[] = [
  { file: 'report.md', render: renderMarkdown },
  { file: 'summary.json', render: renderSummaryJson },
  { file: 'steps.csv', render: renderStepsCsv },
];

/** A renderer whose file only some runs have: `render` returns null where the run has nothing for it (no file is written). */
export interface OptionalRenderer {
  file: string;
  render(run: RunResult): string | null;
}

/** steps-by-name.csv: only for a run with figures by name (a mix of several entries, or a transaction). */
export const optionalRenderers: OptionalRenderer[] = [{ file: 'steps-by-name.csv', render: renderStepsByNameCsv }];

export type { RenderedFile } from './html.ts';

/**
 * A renderer that needs to await (charts are laid out by vega asynchronously) or writes several
 * files (report.html and one .svg per chart). Still pure: a RunResult in, files' contents out.
 */
export interface FileRenderer {
  name: string;
  render(run: RunResult): Promise<RenderedFile[]>;
}

export const fileRenderers: FileRenderer[] = [{ name: 'html', render: renderHtmlFiles }];
