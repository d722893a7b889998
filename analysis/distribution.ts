/**
 * The data-distribution verdict (issue 29). A probe counts what each node holds (rows per
 * partition, partition leaders per server, region leaders per store). With n the nodes judged
 * (the expected ones, or every one read), c_i their counts and mean = (sum c_i) / n:
 *
 *   SPREAD  when every expected node holds some (c_i > 0) and max c_i <= maxSkew x mean
 *   SKEWED  otherwise
 *
 * A node listed with a count of 0 holds nothing, as one that is absent: 150/150/0 leaders is not
 * spread whatever the ratio says. Without expectNodes only the nodes read are judged, and a GROUP
 * BY lists no node that holds nothing, so every reading says whether expectNodes was given.
 *
 * The after reading of a probe is compared with its before reading: the verdicts, each node's
 * count, and the largest move of one node's share of the total.
 */
import type {
  AnalyzeInput,
  DistributionChange,
  DistributionReading,
  DistributionRecord,
  RunResult,
  Symptom,
} from './types.ts';

export function judgeDistribution(r: DistributionRecord): DistributionReading {
  const base = {
    name: r.name,
    when: r.when,
    source: r.source,
    from: r.from,
    takenAt: r.takenAt,
    maxSkew: r.maxSkew,
    expected: r.expectNodes !== undefined,
    ...(r.require ? { require: r.require } : {}),
  };
  const named = Array.isArray(r.expectNodes) ? r.expectNodes : [];
  const counts: Record<string, number> = { ...r.counts };
  for (const n of named) counts[n] ??= 0;
  const read = Object.keys(r.counts);
  const nodes = Math.max(Object.keys(counts).length, typeof r.expectNodes === 'number' ? r.expectNodes : 0);
  const empty = {
    ...base,
    counts,
    nodes,
    totalCount: 0,
    meanCount: null,
    maxNode: null,
    maxCount: null,
    skew: null,
    missing: [],
    missingCount: 0,
    unexpected: [],
  };
  if (r.problem !== undefined) return { ...empty, verdict: null, problem: r.problem };
  if (nodes === 0) return { ...empty, verdict: null };
  const entries = Object.entries(counts);
  // expectNodes: 3 and no row read: every node holds nothing
  if (entries.length === 0) return { ...empty, verdict: 'SKEWED', missingCount: nodes };
  const totalCount = entries.reduce((s, [, c]) => s + c, 0);
  const holding = entries.filter(([, c]) => c > 0).length;
  const missing = entries.filter(([, c]) => c <= 0).map(([n]) => n);
  const missingCount = nodes - holding;
  const [maxNode, maxCount] = entries.reduce((best, e) => (e[1] > best[1] ? e : best), entries[0]);
  const meanCount = totalCount / nodes;
  const skew = meanCount > 0 ? maxCount / meanCount : null;
  const spread = missingCount === 0 && skew !== null && maxCount <= r.maxSkew * meanCount;
  return {
    ...base,
    verdict: spread ? 'SPREAD' : 'SKEWED',
    counts,
    nodes,
    totalCount,
    meanCount,
    maxNode,
    maxCount,
    skew,
    missing,
    missingCount,
    unexpected: named.length ? read.filter((n) => !named.includes(n)) : [],
  };
}

/** Each probe's after reading against its before reading. */
export function changeOf(before: DistributionReading, after: DistributionReading): DistributionChange {
  const names = [...new Set([...Object.keys(before.counts), ...Object.keys(after.counts)])].sort();
  const nodes = names.map((node) => ({ node, before: before.counts[node] ?? 0, after: after.counts[node] ?? 0 }));
  const share = (c: number, total: number) => (total > 0 ? c / total : 0);
  let maxShareMove = 0;
  let maxShareNode: string | null = null;
  for (const n of nodes) {
    const move = Math.abs(share(n.after, after.totalCount) - share(n.before, before.totalCount));
    if (move > maxShareMove) [maxShareMove, maxShareNode] = [move, n.node];
  }
  return {
    verdictBefore: before.verdict,
    verdictAfter: after.verdict,
    changed: before.verdict !== after.verdict,
    nodes,
    totalBefore: before.totalCount,
    totalAfter: after.totalCount,
    maxShareMove,
    maxShareNode,
  };
}

/** Every reading judged, in the order taken, each after reading with its change since the before one. */
export function distributionOf(records: readonly DistributionRecord[]): DistributionReading[] {
  const judged = records.map(judgeDistribution);
  return judged.map((r) => {
    if (r.when !== 'after' || r.problem !== undefined) return r;
    const before = judged.find((b) => b.name === r.name && b.when === 'before' && b.problem === undefined);
    return before ? { ...r, change: changeOf(before, r) } : r;
  });
}

/**
 * The warnings (reports/warning-text.ts words them): a SKEWED reading before the run (the load
 * meets data that one node holds most of), a verdict that changed during the run, a reading that
 * could not be taken.
 */
export function distributionWarnings(readings: readonly DistributionReading[]): Symptom[] {
  const out: Symptom[] = [];
  for (const r of readings) {
    if (r.problem !== undefined) {
      out.push({
        code: 'distribution-unread',
        step: null,
        figures: { name: r.name, when: r.when, problem: r.problem },
      });
      continue;
    }
    if (r.when === 'before' && r.verdict === 'SKEWED') {
      out.push({
        code: 'distribution-skewed',
        step: null,
        figures: {
          name: r.name,
          maxNode: r.maxNode,
          maxCount: r.maxCount,
          meanCount: r.meanCount,
          skew: r.skew,
          maxSkew: r.maxSkew,
          missing: r.missing.join(', '),
          missingCount: r.missingCount,
          nodes: r.nodes,
          required: r.require === 'spread',
        },
      });
    }
    if (r.change?.changed) {
      out.push({
        code: 'distribution-changed',
        step: null,
        figures: {
          name: r.name,
          before: r.change.verdictBefore,
          after: r.change.verdictAfter,
          maxShareNode: r.change.maxShareNode,
          maxShareMove: r.change.maxShareMove,
        },
      });
    }
  }
  return out;
}

/** The run with its distribution readings and their warnings (unchanged when no probe ran). */
export function withDistribution(input: Pick<AnalyzeInput, 'distribution'>, run: RunResult): RunResult {
  if (!input.distribution?.length) return run;
  const distribution = distributionOf(input.distribution);
  return { ...run, distribution, warnings: [...run.warnings, ...distributionWarnings(distribution)] };
}
