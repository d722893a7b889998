/**
 * The verdict sections: the overload shape past the knee, how each failed or rerun step was
 * classified, and the target's own view of each steady window (cross-check, pool reading). Each is
 * built once as plain text (`*Text`), then escaped for report.md here and for report.html in
 * html-sections.ts, so both say the same thing.
 */
import { fmtMs, fmtRate, fmtTarget, stepText } from '../analysis/format.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { attemptFlags, colocationText, rateUnit, stepCell } from './cells.ts';
import { mdCell } from './escape.ts';
import { mdTable } from './markdown-steps.ts';
import { serverLatencyTexts, serverMeanText, thinMeanText } from './server-latency.ts';

/** A paragraph; `lead`, when set, is set in bold before `text`. */
export interface TextParagraph {
  lead?: string;
  text: string;
}

/** A section as plain text, unescaped: a title, paragraphs, then an optional table and list. */
export interface TextSection {
  title: string;
  paragraphs: TextParagraph[];
  table?: { header: string[]; rows: string[][] };
  items?: string[];
}

export function overloadText(run: RunResult): TextSection | null {
  const o = run.overload;
  if (!o || o.shape === 'none') return null;
  const paragraphs: TextParagraph[] = [
    { lead: o.shape, text: `: ${o.evidence}.` },
    { text: `What it usually means: ${o.meaning}.` },
  ];
  if (run.generatorBound)
    paragraphs.push({
      lead: 'This run cannot establish capacity',
      text: ': the load generator reached its limit first (see below).',
    });
  else if (colocationText(run) !== null)
    // the shape's meaning speaks of the target's design; on one machine the cores are shared too
    paragraphs.push({
      lead: 'On one machine',
      text: ": the target shares the generator's cores, and past the knee the two compete for them: this shape may be the machine's as much as the target's design (see Load generator).",
    });
  return { title: 'Overload shape', paragraphs };
}

function attemptLabel(s: RunResult['steps'][number]): string {
  return attemptFlags(s).join(', ');
}

/** Steps that were rerun, flagged transient, generator-bound, generator-limited or contaminated, with why. */
export function classificationText(run: RunResult): TextSection | null {
  const marked = run.steps.filter((s) => attemptLabel(s) !== '');
  if (marked.length === 0) return null;
  const rows = marked.map((s) => [
    String(s.index + 1),
    // an offered rate as the other tables give it: 850, not 850.0
    fmtTarget(s.ratePerSec),
    attemptLabel(s),
    s.verdict,
    s.reasons.join('; '),
  ]);
  return {
    title: 'Failed steps, classified before they count',
    paragraphs: [
      {
        text: "A failed step is rerun once at the same rate; a rerun that holds makes the first attempt transient. A step the generator could not drive (dropped arrivals or scheduler lag while the target stayed fast) is never capacity; when it is rerun with more VUs, the rerun decides. A step whose target shows its own saturation (a connection pool with requests waiting, a server median over verdicts.tailFactor times the warmup's, or the client's where dropped arrivals were the generator's only symptom) failed at the target, whatever the generator showed beside it. Short of that, a failed first step whose generator showed a symptom is inconclusive: with no step held before it, whose limit it was cannot be told. A step that held while the generator was over its bounds is generator-limited: counted, but the gate will not judge a capacity resting on it. A step during which the topology changed is left out of the decision.",
      },
    ],
    table: { header: ['Step', `Target ${rateUnit(run)}`, 'Classification', 'Verdict', 'Why'], rows },
  };
}

function num(x: number | null | undefined, f: (v: number) => string): string {
  return x === null || x === undefined ? '–' : f(x);
}

/** Said where a step has a Pool reading (analysis/pool.ts). */
const POOL_SAMPLED =
  " The pool's gauges are sampled at the same readings, seconds apart: their highest reading can miss every busy moment between, so where the server's rate and mean are known the Pool column adds what its requests keep busy on average by Little's law (rate x mean server time, at most).";

/** The server-side view per step, when the target's metrics were read. */
export function serverText(run: RunResult): TextSection | null {
  const withServer = run.steps.filter((s) => s.crossCheck);
  if (withServer.length === 0) return null;
  const rows = withServer.map((s) => [
    stepCell(s),
    // what the cross-check compared: every request of every arrival for a mix, as the server counts them
    fmtRate(s.crossCheck!.clientPerSec),
    num(s.server?.throughputPerSec, fmtRate),
    num(s.crossCheck?.clientMeanMinusRttMs, (v) => `${fmtMs(v)} ms`),
    serverMeanText(s.server, run.rules),
    num(s.server?.maxMs, (v) => `${fmtMs(v)} ms`),
    s.crossCheck!.verdict,
    s.poolReading ?? '–',
  ]);
  return {
    title: 'Server-side view',
    paragraphs: [
      {
        text: `${serverSourceText(withServer)} Client mean minus the fastest RTT (the min under Load generator) should match the server's mean; a client that reads systematically higher is queueing inside the generator. Server max is the target's max gauge as read at the window's end: such a gauge (a summary's _max in Micrometer or prom-client) covers a window of its own, often minutes and decaying, not this step's alone.${thinMeanText(
          withServer.map((s) => s.server),
          run.rules,
        )}${withServer.some((s) => s.poolReading) ? POOL_SAMPLED : ''}`,
      },
    ],
    table: {
      header: [
        'Step',
        'Client req/s',
        'Server req/s',
        'Client mean - min RTT',
        'Server mean',
        'Server max (its gauge)',
        'Cross-check',
        'Pool',
      ],
      rows,
    },
    items: withServer.map((s) => `${stepText(s.index, s.attempt)}${viaPromqlText(s)}: ${s.crossCheck!.detail}`),
  };
}

/** Where the server's figures came from: the direct readings at the window's edges, or PromQL. */
function serverSourceText(steps: readonly StepResult[]): string {
  const promql = steps.filter((s) => s.server?.source === 'promql').length;
  if (promql === 0) return "The target's own metrics, read at each steady window's edges.";
  const through =
    "through PromQL, over the scrapes Prometheus holds inside each steady window, from the first to the last (each step's span below)";
  return promql === steps.length
    ? `The target's own metrics ${through}.`
    : `The target's own metrics ${through} where Prometheus held two of them; else read directly at the window's edges.`;
}

/** " (through PromQL, 4.37-5.37 s of the 4-6 s window)" for a step read through PromQL; empty otherwise. */
function viaPromqlText(s: StepResult): string {
  const w = s.server;
  if (w?.source !== 'promql') return '';
  return ` (through PromQL, ${w.fromS.toFixed(2)}-${w.toS.toFixed(2)} s of the ${fmtSeconds(s.steadyStartS)}-${fmtSeconds(s.steadyEndS)} s window)`;
}

const fmtSeconds = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** A text section as Markdown lines, every string escaped; none when the section is empty. */
export function mdSection(t: TextSection | null): string[] {
  if (t === null) return [];
  const out = [`## ${mdCell(t.title)}`];
  for (const p of t.paragraphs) out.push('', `${p.lead === undefined ? '' : `**${mdCell(p.lead)}**`}${mdCell(p.text)}`);
  if (t.table) out.push('', ...mdTable(t.table.header, t.table.rows));
  if (t.items && t.items.length > 0) out.push('', ...t.items.map((i) => `- ${mdCell(i)}`));
  return out;
}

export function overloadSection(run: RunResult): string[] {
  return mdSection(overloadText(run));
}

export function classificationSection(run: RunResult): string[] {
  return mdSection(classificationText(run));
}

export function serverSection(run: RunResult): string[] {
  return [...mdSection(serverText(run)), ...serverLatencyTexts(run).flatMap((t) => ['', ...mdSection(t)])];
}
