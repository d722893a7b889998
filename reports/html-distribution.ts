/** The data-distribution section of report.html: the same text as report.md's (markdown-distribution.ts), escaped for HTML. */
import type { RunResult } from '../analysis/types.ts';
import { textSectionHtml } from './html-sections.ts';
import { distributionText } from './markdown-distribution.ts';

/** '' for a run without distribution readings. */
export function distributionHtml(run: RunResult): string {
  return textSectionHtml('distribution', distributionText(run));
}
