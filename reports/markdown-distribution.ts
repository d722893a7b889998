/**
 * The data-distribution readings in report.md (probes.distribution): per probe and moment the
 * verdict, the counts per node and the largest count against the mean, then what moved between
 * before and after. Built once as plain text (also for report.html: html-distribution.ts);
 * nothing for a run without a probe, so stored runs render as they did.
 */
import { fmtInt } from '../analysis/format.ts';
import type { RunResult } from '../analysis/types.ts';
import { mdSection, type TextSection } from './markdown-verdicts.ts';
import { changeText, countsText, fmtSkew, whyText } from './text-distribution.ts';

export const DISTRIBUTION_NOTE =
  'Each probe counts what each node holds (rows per partition, partition leaders per server, region leaders per store) before the warmup and after the last step. SPREAD: every expected node holds some and the largest count is at most maxSkew x the mean; SKEWED otherwise. A load that meets data one node holds most of measures that node, not the cluster.';

const HEADER = ['Probe', 'When', 'Verdict', 'Nodes', 'Counts', 'Largest / mean', 'Why'];

/** The section as plain text; null for a run without distribution readings. */
export function distributionText(run: RunResult): TextSection | null {
  const readings = run.distribution;
  if (!readings || readings.length === 0) return null;
  const rows = readings.map((r) => [
    r.name,
    r.when,
    r.verdict ?? 'not read',
    r.problem !== undefined ? '–' : `${fmtInt(r.nodes - r.missingCount)} of ${fmtInt(r.nodes)} hold some`,
    r.problem !== undefined ? '–' : countsText(r.counts),
    r.skew === null ? '–' : `${fmtSkew(r.skew)} (at most ${fmtSkew(r.maxSkew)})`,
    whyText(r),
  ]);
  const items = readings.flatMap((r) => [
    ...(r.change ? [changeText(r.name, r.change)] : []),
    `${r.name} ${r.when}: read from ${r.from} at ${r.takenAt}`,
  ]);
  return {
    title: 'Data distribution',
    paragraphs: [{ text: DISTRIBUTION_NOTE }],
    table: { header: HEADER, rows },
    items,
  };
}

export function distributionSection(run: RunResult): string[] {
  return mdSection(distributionText(run));
}
