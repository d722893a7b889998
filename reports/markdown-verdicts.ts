/**
 * report.md's verdict sections: the overload shape past the knee, how each failed or rerun step
 * was classified, and the target's own view of each steady window (cross-check, pool reading).
 */
import { fmtMs, fmtRate } from '../analysis/format.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { mdCell } from './escape.ts';
import { mdTable } from './markdown-steps.ts';

export function overloadSection(run: RunResult): string[] {
  const o = run.overload;
  if (!o || o.shape === 'none') return [];
  const lines = ['## Overload shape', '', `**${o.shape}**: ${mdCell(o.evidence)}.`, '', `What it usually means: ${mdCell(o.meaning)}.`];
  if (run.generatorBound) lines.push('', '**This run cannot establish capacity**: the load generator reached its limit first (see below).');
  return lines;
}

function attemptLabel(s: StepResult): string {
  const flags = [s.attempt && s.attempt > 1 ? `attempt ${s.attempt}` : '', s.transient ? 'transient' : '', s.generatorBound ? 'generator-bound' : '', s.generatorLimited ? 'generator-limited' : '', s.inconclusive ? 'inconclusive' : '', s.contaminated ? 'contaminated' : ''].filter(Boolean);
  return flags.join(', ');
}

/** Steps that were rerun, flagged transient, generator-bound, generator-limited or contaminated, with why. */
export function classificationSection(run: RunResult): string[] {
  const marked = run.steps.filter((s) => attemptLabel(s) !== '');
  if (marked.length === 0) return [];
  const rows = marked.map((s) => [String(s.index + 1), fmtRate(s.ratePerSec), attemptLabel(s), s.verdict, s.reasons.join('; ')]);
  return [
    '## Failed steps, classified before they count',
    '',
    'A failed step is rerun once at the same rate; a rerun that holds makes the first attempt transient. A step the generator could not drive (dropped arrivals or scheduler lag while the target stayed fast) is never capacity; when it is rerun with more VUs, the rerun decides. A failed first step whose generator showed a symptom is inconclusive: with no step held before it, whose limit it was cannot be told. A step that held while the generator was over its bounds is generator-limited: counted, but the gate will not judge a capacity resting on it. A step during which the topology changed is left out of the decision.',
    '',
    ...mdTable(['Step', 'Target req/s', 'Classification', 'Verdict', 'Why'], rows),
  ];
}

function num(x: number | null | undefined, f: (v: number) => string): string {
  return x === null || x === undefined ? '–' : f(x);
}

/** The server-side view per step, when the target's metrics were read. */
export function serverSection(run: RunResult): string[] {
  const withServer = run.steps.filter((s) => s.crossCheck);
  if (withServer.length === 0) return [];
  const rows = withServer.map((s) => [
    String(s.index + 1),
    fmtRate(s.completedPerSec),
    num(s.server?.throughputPerSec, fmtRate),
    num(s.crossCheck?.clientMeanMinusRttMs, (v) => `${fmtMs(v)} ms`),
    num(s.server?.meanMs, (v) => `${fmtMs(v)} ms`),
    num(s.server?.maxMs, (v) => `${fmtMs(v)} ms`),
    s.crossCheck!.verdict,
    s.poolReading ?? '–',
  ]);
  return [
    '## Server-side view',
    '',
    'The target\'s own metrics, read at each steady window\'s edges. Client mean minus RTT should match the server\'s mean; a client that reads systematically higher is queueing inside the generator.',
    '',
    ...mdTable(['Step', 'Client req/s', 'Server req/s', 'Client mean - RTT', 'Server mean', 'Server max', 'Cross-check', 'Pool'], rows),
    '',
    ...withServer.map((s) => `- step ${s.index + 1}: ${mdCell(s.crossCheck!.detail)}`),
  ];
}
