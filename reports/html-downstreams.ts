/** The downstreams section of report.html: the same text as report.md's (markdown-downstreams.ts), escaped for HTML. */
import type { RunResult } from '../analysis/types.ts';
import { textSectionHtml } from './html-sections.ts';
import { downstreamsText } from './markdown-downstreams.ts';

/** '' for a run that declared no downstream. */
export function downstreamsHtml(run: RunResult): string {
  return textSectionHtml('downstreams', downstreamsText(run));
}
