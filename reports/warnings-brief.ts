/**
 * The run's warnings in one line under the headline (report.md and report.html), for a reader who
 * stops at the top: how many, how many of them the headline already said under the capacity
 * (caveatWarnings), and what the first few are about, each renderer linking it to its Warnings
 * section. A run without warnings has no line: the headline says only what qualifies it.
 */
import type { RunResult, Symptom } from '../analysis/types.ts';
import { caveatWarnings } from './warning-text.ts';

/** Topics named in the line; the warnings of the others are counted ("and 3 others"). */
export const BRIEF_TOPICS_MAX = 3;

/**
 * What a warning is about, in a few words that read after "2 on": one topic for codes a reader
 * would act on alike (a busy thread, a busy process: the generator's headroom). A code not here
 * is named by itself.
 */
const TOPICS: Record<string, string> = {
  unfinished: 'an unfinished run',
  'torn-lines': 'torn lines in the store',
  'closed-model': 'a closed-model run',
  'k6-scenarios-summed': 'summed k6 scenarios',
  'k6-checks-failed': 'failed k6 checks',
  'window-empty': 'empty steady windows',
  'window-short': 'short steady windows',
  dropped: 'dropped arrivals',
  'late-start': 'late arrivals',
  'loop-delay': 'event-loop delay',
  'thread-busy': "the generator's headroom",
  'process-cpu': "the generator's headroom",
  throttled: 'CPU quota throttling',
  refused: 'refused connections',
  reconnects: 'reconnects',
  'over-delivered': 'over-delivery',
  'threads-short': 'too few generator threads',
  'cpu-steal': 'CPU steal',
  'thin-percentile': 'unreliable percentiles',
  'cold-target': 'a target still warming',
  'names-failing': 'failing names',
  'scenario-unhandled': "the scenario's unhandled errors",
  'route-unseen': 'a route mapping that matched nothing',
  'labels-unseen': 'a label filter that matched nothing',
  'failures-in-held': 'failures in held steps',
  'transaction-past-settle': 'transactions longer than the settle',
  'replay-differs': 'a replay that differs from the live run',
  'names-past-limit': 'names past the limit',
  'downstream-fan-out': 'downstream fan-out',
  'downstream-hot-shard': 'a hot downstream shard',
  'distribution-skewed': 'the data distribution',
  'distribution-changed': 'the data distribution',
  'distribution-unread': 'the data distribution',
};

/** A warning's topic (TOPICS), its code where it has none. */
export function warningTopic(w: Pick<Symptom, 'code'>): string {
  return TOPICS[w.code] ?? w.code;
}

/** The line's parts: the count the renderers link ("Warnings: 4") and what follows it. */
export interface WarningsBrief {
  label: string;
  text: string;
}

/**
 * "Warnings: 5" and "1 said above, 2 on dropped arrivals, 2 on unreliable percentiles": those the
 * headline said first (the capacity's caveats), then the others by topic, in the order of the
 * topic's first warning (the analysis's order: the run's own first, then step by step, then over
 * the steps), BRIEF_TOPICS_MAX topics at most. Null without warnings.
 */
export function warningsBrief(run: Pick<RunResult, 'steps' | 'warnings' | 'kneeStep'>): WarningsBrief | null {
  if (run.warnings.length === 0) return null;
  const said = new Set(caveatWarnings(run));
  const rest = run.warnings.filter((w) => !said.has(w));
  const label = `Warnings: ${run.warnings.length}`;
  if (rest.length === 0) return { label, text: 'said above' };
  const byTopic = new Map<string, number>();
  for (const w of rest) byTopic.set(warningTopic(w), (byTopic.get(warningTopic(w)) ?? 0) + 1);
  const named = [...byTopic].slice(0, BRIEF_TOPICS_MAX);
  const others = rest.length - named.reduce((n, [, k]) => n + k, 0);
  const parts = [
    ...(said.size > 0 ? [`${said.size} said above`] : []),
    ...named.map(([topic, n]) => `${n} on ${topic}`),
    ...(others > 0 ? [`and ${others} ${others === 1 ? 'other' : 'others'}`] : []),
  ];
  return { label, text: parts.join(', ') };
}
