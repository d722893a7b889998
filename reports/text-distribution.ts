/**
 * The data-distribution readings in words, for report.md, report.html, the warnings and the
 * reset stage's line: the verdict, the counts per node, the largest count against the mean and
 * the bound, what is missing, and what moved between before and after.
 */
import { fmtInt, fmtShare } from '../analysis/format.ts';
import type { DistributionChange, DistributionReading, Symptom } from '../analysis/types.ts';

/** A count as read: whole numbers as such, others with two decimals. */
export function fmtCount(n: number): string {
  return Number.isInteger(n) ? fmtInt(n) : n.toFixed(2);
}

/** "1.03x" */
export function fmtSkew(x: number | null): string {
  return x === null ? '–' : `${x.toFixed(2)}x`;
}

/** "s1 112, s2 112, s3 102", largest first (ties by name). */
export function countsText(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length ? entries.map(([n, c]) => `${n} ${fmtCount(c)}`).join(', ') : 'no rows';
}

/** Why the verdict is what it is, in one clause. */
export function whyText(r: DistributionReading): string {
  if (r.problem !== undefined) return `not read: ${r.problem}`;
  if (r.verdict === null) return 'nothing to judge: the probe returned no rows and expectNodes is not set';
  const missing =
    r.missingCount > 0
      ? `${fmtInt(r.missingCount)} of ${fmtInt(r.nodes)} nodes hold nothing${r.missing.length ? ` (${r.missing.join(', ')})` : ''}`
      : null;
  const ratio =
    r.skew === null
      ? null
      : `largest ${r.maxNode} ${fmtCount(r.maxCount!)} is ${fmtSkew(r.skew)} the mean ${fmtCount(Math.round(r.meanCount! * 100) / 100)} (${r.skew <= r.maxSkew ? 'within' : 'over'} ${fmtSkew(r.maxSkew)})`;
  const unexpected = r.unexpected.length ? `; read but not expected: ${r.unexpected.join(', ')}` : '';
  const unseen = r.expected
    ? ''
    : '; expectNodes not set, so a node that holds nothing may not be listed (set it to the nodes that should share the data)';
  return `${[missing, ratio].filter(Boolean).join('; ')}${unexpected}${unseen}`;
}

/** "leaders before: SPREAD (s1 112, s2 112, s3 102; largest s1 112 is 1.03x the mean 108.67 (within 1.50x))". */
export function readingText(r: DistributionReading): string {
  if (r.verdict === null) return `${r.name} ${r.when}: ${whyText(r)}`;
  return `${r.name} ${r.when}: ${r.verdict} (${countsText(r.counts)}; ${whyText(r)})`;
}

/** What moved between the before and the after reading. */
export function changeText(name: string, c: DistributionChange): string {
  const moves = c.nodes
    .filter((n) => n.before !== n.after)
    .map((n) => `${n.node} ${fmtCount(n.before)} -> ${fmtCount(n.after)}`);
  const verdicts = c.changed
    ? `changed during the run: ${c.verdictBefore ?? 'no verdict'} before, ${c.verdictAfter ?? 'no verdict'} after`
    : `${c.verdictAfter ?? 'no verdict'} before and after`;
  const counts = moves.length ? `; ${moves.join(', ')}` : '; every count unchanged';
  const share =
    c.maxShareNode !== null && c.maxShareMove > 0
      ? `; the largest move of one node's share: ${c.maxShareNode}, ${fmtShare(c.maxShareMove)} of the total`
      : '';
  return `${name}: ${verdicts}${counts}${share}`;
}

/** The distribution warnings in words (analysis/distribution.ts makes them). */
export function distributionWarningText(w: Symptom): string {
  const f = w.figures;
  if (w.code === 'distribution-unread')
    return `distribution probe ${f.name} could not be read ${f.when === 'after' ? 'after the last step' : 'before the run'}: ${f.problem}; fix the probe (docs/distribution.md) so the report can say whether the data stayed spread`;
  if (w.code === 'distribution-changed')
    return `distribution probe ${f.name} read ${f.before} before the run and ${f.after} after it (the largest move of one node's share: ${f.maxShareNode}, ${fmtShare(f.maxShareMove as number)} of the total): the data moved during the load (a rebalance, a leader election, writes landing on one node), so the steps did not all meet the same layout; find what moved it before comparing runs`;
  const missing =
    (f.missingCount as number) > 0
      ? `${f.missingCount} of ${f.nodes} nodes hold nothing${f.missing ? ` (${f.missing})` : ''}`
      : '';
  const ratio =
    f.skew === null
      ? ''
      : `${f.maxNode} holds ${fmtSkew(f.skew as number)} the mean (over ${fmtSkew(f.maxSkew as number)})`;
  const head = `distribution probe ${f.name} read SKEWED before the run: ${[missing, ratio].filter(Boolean).join('; ')}`;
  return f.required
    ? `${head}; it requires 'spread', so the run stopped before any load: spread the data first (re-split regions, move the leaders back: docs/distribution.md)`
    : `${head}: the load met data one node holds most of, so the capacity measured is that node's; spread the data first (docs/distribution.md), or set require: 'spread' to stop such a run before any load`;
}
