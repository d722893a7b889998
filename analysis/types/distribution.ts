/**
 * The data-distribution probe (issue 29): how much of the data each node holds (rows per
 * partition, partition leaders per server, region leaders per store), read before the warmup and
 * after the last step, and the SPREAD / SKEWED verdict on each reading. Types only.
 *
 * RunResult.distribution and AnalyzeInput.distribution are declared here, by augmenting
 * results.ts, so the whole feature's types live in one file.
 */

export type DistributionWhen = 'before' | 'after';
export type DistributionVerdict = 'SPREAD' | 'SKEWED';

/** One reading as the harness took it (run.json `distribution[]`): counts per node, or why there are none. */
export interface DistributionRecord {
  name: string;
  when: DistributionWhen;
  source: 'sql' | 'metric';
  /** What was read, without credentials: "postgres at 127.0.0.1:5432/shop", a metrics URL. */
  from: string;
  /** ISO time of the reading. */
  takenAt: string;
  /** The count per node, as read (rows of the same node summed). */
  counts: Record<string, number>;
  /** The nodes that must each hold some, by name, or how many there must be. */
  expectNodes?: string[] | number;
  /** SPREAD needs the largest count at most maxSkew x the mean. */
  maxSkew: number;
  require?: 'spread';
  /** Why the probe could not be read (counts are then empty and there is no verdict). */
  problem?: string;
}

/** One reading judged (RunResult.distribution[], summary.json's `distribution[]`). */
export interface DistributionReading {
  name: string;
  when: DistributionWhen;
  source: 'sql' | 'metric';
  from: string;
  takenAt: string;
  /** SPREAD, SKEWED, or null when the probe could not be read or returned nothing to judge. */
  verdict: DistributionVerdict | null;
  /** The count per node judged: what was read, and each expected node missing from it at 0. */
  counts: Record<string, number>;
  /** How many nodes the mean is taken over (the expected ones, or every one read). */
  nodes: number;
  totalCount: number;
  meanCount: number | null;
  maxNode: string | null;
  maxCount: number | null;
  /** Largest count / mean. */
  skew: number | null;
  maxSkew: number;
  /** Expected nodes that hold nothing (absent, or a count of 0), by name. */
  missing: string[];
  /** How many nodes hold nothing of those that should (missing.length, or short of a count of expectNodes). */
  missingCount: number;
  /** Nodes read that expectNodes does not name. */
  unexpected: string[];
  /** Whether expectNodes was given (without it a node that holds nothing may not be listed at all). */
  expected: boolean;
  require?: 'spread';
  problem?: string;
  /** On an after reading with a before reading of the same probe: what moved during the run. */
  change?: DistributionChange;
}

/** The after reading against the before one. */
export interface DistributionChange {
  verdictBefore: DistributionVerdict | null;
  verdictAfter: DistributionVerdict | null;
  /** The verdict differs between the two readings. */
  changed: boolean;
  /** Every node of either reading, its count before and after. */
  nodes: { node: string; before: number; after: number }[];
  totalBefore: number;
  totalAfter: number;
  /** The largest change of one node's share of the total (0.25: a quarter of the data moved to or from it). */
  maxShareMove: number;
  /** The node whose share moved most. */
  maxShareNode: string | null;
}

declare module './results.ts' {
  interface RunResult {
    /** The data-distribution readings (probes.distribution), before and after, when any probe ran. */
    distribution?: DistributionReading[];
  }
  interface AnalyzeInput {
    /** The distribution readings recorded in run.json. */
    distribution?: DistributionRecord[];
  }
}
