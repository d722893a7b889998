/**
 * The downstreams a service calls (metrics.downstreams) in report.md: the verdict (the one that
 * limited at the knee on its own evidence, or where the evidence points instead), per step each
 * one's ops/s, ops per request and shares, and each one's evidence and problems. Built once as
 * plain text (also for report.html: html-downstreams.ts); nothing for a run without downstreams.
 */
import { fmtFanOut, fmtOps } from '../analysis/downstream-evidence.ts';
import { fmtMs, fmtRate, fmtShare, stepNo } from '../analysis/format.ts';
import type { DownstreamResult, RunResult } from '../analysis/types.ts';
import { mdSection, type TextSection } from './markdown-verdicts.ts';

export const DOWNSTREAM_NOTE =
  "Each downstream's ops/s and ops per successful request over every steady window. A flat ops rate proves nothing: when the service flattens for any reason, every downstream flattens with it. A downstream is named the limit only on its own evidence: its saturation gauge grew, its per-op time grew while the service's pool and the generator stayed clear, or its ops/s reached its declared ceiling.";

const HEADER = ['Step', 'Downstream', 'Ops/s', 'Ops per request', 'Saturation (start -> max)', 'Per-op mean', 'Shares'];

function cell<T>(x: T | null | undefined, f: (v: T) => string): string {
  return x === null || x === undefined ? '–' : f(x);
}

function gauge(v: number): string {
  return Number.isInteger(v) ? String(v) : fmtRate(v);
}

function rows(d: DownstreamResult): string[][] {
  return d.steps.map((s) => [
    `${stepNo(s.step)}${s.attempt ? ` (attempt ${s.attempt})` : ''}`,
    d.name,
    s.counterReset ? 'counter reset' : cell(s.opsPerSec, fmtOps),
    cell(s.opsPerRequest, fmtFanOut),
    s.saturationMax === undefined && s.saturationStart === undefined
      ? '–'
      : `${cell(s.saturationStart, gauge)} -> ${cell(s.saturationMax, gauge)}`,
    cell(s.latencyMeanMs, (v) => `${fmtMs(v)} ms`),
    s.shares
      ? Object.entries(s.shares)
          .map(([k, v]) => `${k} ${fmtShare(v)}`)
          .join(', ')
      : '–',
  ]);
}

/** The section as plain text; null for a run that declared no downstream. */
export function downstreamsText(run: RunResult): TextSection | null {
  const ds = run.downstreams;
  if (!ds || ds.length === 0) return null;
  const v = run.downstreamVerdict;
  const byStep = ds.flatMap((d) => rows(d).map((r, i) => ({ order: i, r })));
  byStep.sort((a, b) => a.order - b.order);
  const items = ds.flatMap((d) => [
    ...(d.evidence ? [d.evidence] : []),
    ...(d.steps.some((s) => s.counterReset)
      ? [
          `${d.name}: a counter went backwards (a restart) in the window of step ${stepList(d.steps.filter((s) => s.counterReset).map((s) => s.step))}: its figures there are left out; keep the downstream up during the run`,
        ]
      : []),
    ...(d.problems ?? []),
  ]);
  return {
    title: 'Downstreams',
    paragraphs: [
      ...(v
        ? [
            {
              lead: v.limiting ? 'Limiting downstream' : 'No downstream named the limit',
              text: `: ${v.detail}.`,
            },
          ]
        : []),
      { text: DOWNSTREAM_NOTE },
    ],
    table: { header: HEADER, rows: byStep.map((x) => x.r) },
    items,
  };
}

function stepList(indices: number[]): string {
  return [...new Set(indices)].map((i) => String(stepNo(i))).join(', ');
}

export function downstreamsSection(run: RunResult): string[] {
  return mdSection(downstreamsText(run));
}
