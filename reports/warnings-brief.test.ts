/** The warnings' line under the headline: their count, what the headline already said, the first topics, a link to them. */
import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { RunResult, Symptom } from '../analysis/types.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { warningsBrief } from './warnings-brief.ts';

/** A plateau at step 2 (index 1): steps 1 and 2 hold, step 3 fails twice. */
const base = fakeRun({
  steps: [
    { ratePerSec: 100 },
    { ratePerSec: 200 },
    { ratePerSec: 300, okPerSec: 210 },
    { ratePerSec: 300, okPerSec: 205 },
  ],
});

const thin = (q: number): Symptom => ({
  code: 'thin-percentile',
  step: null,
  figures: { q, steps: [0, 1], minN: 250, maxN: 500, neededN: 3000 },
});
const dropped = (step: number): Symptom => ({
  code: 'dropped',
  step,
  figures: { dropped: 12, droppedBusy: 0, waitedOnTarget: true },
});
const failingName: Symptom = {
  code: 'names-failing',
  step: null,
  figures: { name: 'get b', steps: [0, 1], errorRate: 1, transaction: false },
};
/** Failures in held steps, at the knee (index 1) or before it only. */
const failuresIn = (steps: number[]): Symptom => ({
  code: 'failures-in-held',
  step: null,
  figures: { steps, worstShare: 0.05, worstStep: steps[0], names: '[]', nameShares: [] },
});
const at = (code: string, step: number | null = null): Symptom => ({ code, step, figures: {} });

const withWarnings = (warnings: Symptom[]): RunResult => ({ ...base, warnings });

describe('warningsBrief', () => {
  it.each<[string, Symptom[], string | null]>([
    ['none: no line', [], null],
    [
      'by topic, in the order of their first warning',
      [dropped(2), dropped(3), thin(99), thin(99.9)],
      'Warnings: 4: 2 on dropped arrivals, 2 on unreliable percentiles',
    ],
    [
      'a failing name, said under the capacity: counted, not named again',
      [thin(99), failingName],
      'Warnings: 2: 1 said above, 1 on unreliable percentiles',
    ],
    ['every one said under the capacity', [failingName], 'Warnings: 1: said above'],
    [
      'failures in held steps at the knee are said above; before it only, they are not',
      [failuresIn([1]), failuresIn([0])],
      'Warnings: 2: 1 said above, 1 on failures in held steps',
    ],
    [
      'past three topics the rest are counted',
      [at('late-start', 2), at('late-start', 3), at('loop-delay', 2), at('cpu-steal'), thin(99), thin(99.9)],
      'Warnings: 6: 2 on late arrivals, 1 on event-loop delay, 1 on CPU steal, and 2 others',
    ],
    [
      "a busy thread and a busy process are one topic, the generator's headroom",
      [at('thread-busy', 2), at('process-cpu', 3), at('window-short', 3)],
      "Warnings: 3: 2 on the generator's headroom, 1 on short steady windows",
    ],
    ['a code without a topic is named by itself', [at('something-new')], 'Warnings: 1: 1 on something-new'],
  ])('%s', (_, warnings, line) => {
    const brief = warningsBrief(withWarnings(warnings));
    expect(brief === null ? null : `${brief.label}: ${brief.text}`).toBe(line);
  });
});

describe('report.md and report.html under the headline', () => {
  /** The header block of each: the Markdown before its first section, the HTML's <header>. */
  const heads = (run: RunResult) => {
    const md = renderMarkdown(run);
    const html = renderHtml(run, []);
    return {
      md,
      html,
      mdHead: md.slice(0, md.indexOf('\n## ')),
      htmlHead: html.slice(html.indexOf('<header>'), html.indexOf('</header>')),
    };
  };

  it('give the count and the first topics, linked to the Warnings section, as the last line of the headline; a run without warnings has none', () => {
    const { md, html, mdHead, htmlHead } = heads(withWarnings([dropped(2), thin(99), thin(99.9)]));
    const line = '**[Warnings: 3](#warnings)**: 1 on dropped arrivals, 2 on unreliable percentiles';
    expect(mdHead.trimEnd().endsWith(`\n\n${line}`)).toBe(true);
    expect(md).toMatch(/\n## Warnings\n\n(- .*\n){3}\n/);
    expect(htmlHead.trimEnd()).toMatch(
      /<p><strong><a href="#warnings">Warnings: 3<\/a><\/strong>: 1 on dropped arrivals, 2 on unreliable percentiles<\/p>$/,
    );
    expect(html).toContain('<section id="warnings">');
    expect(html.match(/<section id="warnings">[\s\S]*?<\/section>/)![0].match(/<li>/g)).toHaveLength(3);

    const none = heads(withWarnings([]));
    expect(none.md).not.toContain('(#warnings)');
    expect(none.htmlHead).not.toContain('#warnings');
    expect(none.md).toContain('## Warnings\n\nNone.');
  });

  it('count a caveat already said under the capacity as "said above", and say it once in the headline', () => {
    const { mdHead, htmlHead } = heads(withWarnings([thin(99), failingName]));
    expect(mdHead).toContain('**[Warnings: 2](#warnings)**: 1 said above, 1 on unreliable percentiles');
    expect(htmlHead).toContain(
      '<a href="#warnings">Warnings: 2</a></strong>: 1 said above, 1 on unreliable percentiles</p>',
    );
    expect(mdHead.match(/"get b" failed/g)).toHaveLength(1);
    expect(htmlHead.match(/&quot;get b&quot; failed/g)).toHaveLength(1);
  });
});
