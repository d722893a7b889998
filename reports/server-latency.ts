/**
 * The server's latency beside the client's, as plain text (markdown and html render it): which
 * request series and unit were read, each step's server p50/p90/p99 from the histogram with its
 * sample count and the bounds of the bucket it lies in ("p99 41.2 ms (n=4,512; bucket 25 to 50
 * ms)", "~44.6 ms* (n=171; ...)" on too few samples, as the client's are marked) beside the
 * client's percentiles minus the RTT, each mapped name's own cross-check, and the problems the
 * readings reported. Nothing for a run whose metrics config is not recorded (stored reports unchanged).
 * serverLatencyTexts at the end is what the two reports call.
 */
import { fmtInt, fmtMs, fmtRate, stepNo, stepText } from '../analysis/format.ts';
import { requiredSamples } from '../analysis/percentiles.ts';
import { isCounterOnly } from '../analysis/request-series.ts';
import { serverRttMs } from '../analysis/cross-check.ts';
import { serverMeanReliable, serverRequests } from '../analysis/server-mean.ts';
import type {
  NameResult,
  PercentileCap,
  Rules,
  RunResult,
  ServerPercentile,
  ServerWindow,
  StepResult,
} from '../analysis/types.ts';
import type { TextSection } from './markdown-verdicts.ts';
import { markedFigure, percentileCell, stepCell } from './cells.ts';

const QUANTILES = [50, 90, 99] as const;
const DASH = '–';

/** A bucket bound to 3 significant digits: "25", "2.5", "4.19" (Micrometer's 4.194304), "10,000". */
function fmtBound(ms: number): string {
  return ms >= 1000 ? fmtInt(Math.round(ms)) : String(Number(ms.toPrecision(3)));
}

const CAPPED_AT: Record<PercentileCap, string> = { 'server-max': "the server's max", 'client-max': "the client's max" };

/**
 * "41.2 ms (n=4,512; bucket 25 to 50 ms)"; above the highest bound "> 10,000 ms (n=4,512; the
 * +Inf bucket ...)"; one capped at a max (analysis/server-cap.ts) "≤ 488 ms (n=4,512; bucket 447
 * to 537 ms, capped at the server's max)". One on too few samples is marked as a client's is
 * (cells.ts markedFigure): "~44.6 ms* (n=171; bucket 39.1 to 44.7 ms)"; so is one never judged
 * (no `reliable`): unmarked means judged and trusted.
 */
export function serverPercentileText(p: ServerPercentile | undefined): string {
  if (!p || p.valueMs === null) return `${DASH} (no requests)`;
  const figure = (ms: string) => markedFigure(`${ms} ms`, p.reliable === true);
  const n = `n=${fmtInt(p.n)}`;
  if (p.upperMs === null) return `> ${figure(fmtBound(p.lowerMs))} (${n}; the +Inf bucket: above the highest bound)`;
  const bucket = `bucket ${fmtBound(p.lowerMs)} to ${fmtBound(p.upperMs)} ms`;
  if (p.cappedBy) return `≤ ${figure(fmtMs(p.valueMs))} (${n}; ${bucket}, capped at ${CAPPED_AT[p.cappedBy]})`;
  return `${figure(fmtMs(p.valueMs))} (${n}; ${bucket})`;
}

/**
 * The server's mean: "18.8 ms"; over fewer requests than a mean needs (analysis/server-mean.ts
 * serverMeanReliable) marked with its count, "~0.449 ms* (n=1)"; "–" without one.
 */
export function serverMeanText(w: ServerWindow | null | undefined, rules: Pick<Rules, 'minTailSamples'>): string {
  if (w?.meanMs === null || w?.meanMs === undefined) return DASH;
  const v = `${fmtMs(w.meanMs)} ms`;
  return serverMeanReliable(w, rules.minTailSamples)
    ? v
    : `${markedFigure(v, false)} (n=${fmtInt(serverRequests(w) ?? 0)})`;
}

/** The sentence on thin server means, where a window shown has one, and what is not judged by them (analysis/cross-check.ts crossCheck, analysis/verdicts.ts). */
export function thinMeanText(
  windows: readonly (ServerWindow | null | undefined)[],
  rules: Pick<Rules, 'minTailSamples'>,
): string {
  if (!windows.some((w) => w && w.meanMs !== null && !serverMeanReliable(w, rules.minTailSamples))) return '';
  return ` ~value* marks a server mean of fewer than ${fmtInt(rules.minTailSamples)} requests (n, those the server counted in the window): too few to stand for its time per request, so the cross-check does not compare it with the client's mean, nor is a step's tail judged by it.`;
}

/** The sentence on the percentiles' counts and marks (the client's rule, on both sides). */
function samplesText(rules: Pick<Rules, 'minTailSamples'>): string {
  return `Each percentile carries its samples (n: the client's successful requests; the server's, every request its histogram counted in the window); ~value* marks one, client's or server's, with fewer than ${fmtInt(rules.minTailSamples)} samples beyond it (p90 needs ${fmtInt(requiredSamples(90, rules.minTailSamples))} in the window, p99 ${fmtInt(requiredSamples(99, rules.minTailSamples))}).`;
}

/** The sentence on capped percentiles, where a window shown has one. */
function cappedText(windows: readonly (ServerWindow | null | undefined)[]): string {
  if (!windows.some((w) => w?.percentiles?.some((p) => p.cappedBy))) return '';
  return " ≤ marks a server percentile whose interpolation landed above the slowest request known: it is capped there, at the server's max gauge or the client's max over the window (the server's time lies inside the client's), whichever is lower, and is an upper bound.";
}

/** The client's percentile q minus the RTT: "38.9 ms (n=4,512)", an unreliable one "~38.9 ms* (n=168)". */
function clientCell(latency: StepResult['latency'], q: number, rttMs: number): string {
  const p = latency.find((x) => x.q === q);
  if (!p || p.valueMs === null) return DASH;
  return percentileCell({ ...p, valueMs: Math.max(0, p.valueMs - rttMs) });
}

function serverCell(w: ServerWindow | null | undefined, q: number): string {
  if (w?.counterReset) return `${DASH} (counter reset)`;
  if (!w?.percentiles) return DASH;
  return serverPercentileText(w.percentiles.find((p) => p.q === q));
}

const withServer = (run: RunResult) => run.steps.filter((s) => s.crossCheck);

/** "steps 1, 2: <line>" for each problem line of the windows, once, with the steps that had it. */
function problemItems(windows: { label: string; w: ServerWindow | null | undefined }[]): string[] {
  const steps = new Map<string, string[]>();
  for (const { label, w } of windows)
    for (const line of w?.problems ?? []) steps.set(line, [...(steps.get(line) ?? []), label]);
  return [...steps].map(([line, at]) => `${at.length > 1 ? 'steps' : 'step'} ${at.join(', ')}: ${line}`);
}

/** Server p50/p90/p99 beside the client's minus the RTT, per step; null without recorded request series or server readings. */
export function serverLatencyText(run: RunResult): TextSection | null {
  const steps = withServer(run);
  if (!run.requestSeries || steps.length === 0) return null;
  const series = `Request series: ${run.requestSeries}.`;
  if (isCounterOnly(run.requestSeries))
    return {
      title: 'Server latency',
      paragraphs: [
        { text: `${series} Latency not compared (a request counter): only its throughput is cross-checked.` },
      ],
    };
  const rttMs = serverRttMs(run.rtt);
  const items = problemItems(steps.map((s) => ({ label: stepCell(s), w: s.server })));
  const shown = steps.filter((s) => s.server?.percentiles || s.server?.counterReset);
  if (shown.length === 0)
    return {
      title: 'Server latency',
      paragraphs: [
        {
          text: `${series} It has no histogram buckets in these windows: no server percentiles, the means are compared above (Micrometer: management.metrics.distribution.percentiles-histogram.http.server.requests=true exposes them).`,
        },
      ],
      ...(items.length > 0 ? { items } : {}),
    };
  return {
    title: 'Server latency',
    paragraphs: [
      {
        text: `${series} The server's percentiles come from its histogram's bucket deltas over each steady window, interpolated within the bucket as Prometheus's histogram_quantile does: read each against its bucket's bounds, the resolution it has. The client's are minus the fastest RTT (${fmtMs(rttMs)} ms). ${samplesText(run.rules)}${cappedText(shown.map((s) => s.server))}`,
      },
    ],
    table: {
      header: ['Step', ...QUANTILES.flatMap((q) => [`Client p${q} - RTT`, `Server p${q}`])],
      rows: shown.map((s) => [
        stepCell(s),
        ...QUANTILES.flatMap((q) => [clientCell(s.latency, q, rttMs), serverCell(s.server, q)]),
      ]),
    },
    ...(items.length > 0 ? { items } : {}),
  };
}

/** Each mapped name's own cross-check (metrics.requests.routes): a row per name per step. */
export function serverNamesText(run: RunResult): TextSection | null {
  const rows: { step: StepResult; name: string; n: NameResult }[] = [];
  for (const s of withServer(run))
    for (const [name, n] of Object.entries(s.byName ?? {})) if (n.crossCheck) rows.push({ step: s, name, n });
  if (rows.length === 0) return null;
  const rttMs = serverRttMs(run.rtt);
  const num = (x: number | null | undefined, f: (v: number) => string) => (x === null || x === undefined ? DASH : f(x));
  const counterOnly = isCounterOnly(run.requestSeries);
  const items = problemItems(rows.map((r) => ({ label: `${stepNo(r.step.index)} "${r.name}"`, w: r.n.server })));
  return {
    title: 'Server-side view by name',
    paragraphs: [
      {
        text: `Each name mapped to a route (metrics.requests.routes) against that route's own series: its requests per second, its mean${counterOnly ? '' : ' and p99'} (the client's minus the fastest RTT, ${fmtMs(rttMs)} ms).${counterOnly ? '' : ` ${samplesText(run.rules)}${cappedText(rows.map((r) => r.n.server))}`}${thinMeanText(
          rows.map((r) => r.n.server),
          run.rules,
        )}`,
      },
    ],
    table: {
      header: [
        'Step',
        'Name',
        'Client req/s',
        'Server req/s',
        'Client mean - RTT',
        'Server mean',
        ...(counterOnly ? [] : ['Client p99 - RTT', 'Server p99']),
        'Cross-check',
      ],
      rows: rows.map(({ step, name, n }) => [
        String(stepNo(step.index)),
        name,
        fmtRate(n.completedPerSec),
        num(n.server?.throughputPerSec, fmtRate),
        num(n.crossCheck?.clientMeanMinusRttMs, (v) => `${fmtMs(v)} ms`),
        serverMeanText(n.server, run.rules),
        ...(counterOnly ? [] : [clientCell(n.latency, 99, rttMs), serverCell(n.server, 99)]),
        n.crossCheck!.verdict,
      ]),
    },
    items: [
      ...rows.map(({ step, name, n }) => `${stepText(step.index, step.attempt)} "${name}": ${n.crossCheck!.detail}`),
      ...items,
    ],
  };
}

/**
 * The sections after the server-side view, each with its html id: report.md renders them with
 * mdSection (markdown-verdicts.ts serverSection), report.html with textSectionHtml (html-sections.ts
 * serverHtml), so both say the same thing. Empty for a run with neither.
 */
export function serverLatencyTexts(run: RunResult): (TextSection & { id: string })[] {
  const out: (TextSection & { id: string })[] = [];
  const latency = serverLatencyText(run);
  if (latency) out.push({ ...latency, id: 'server-latency' });
  const names = serverNamesText(run);
  if (names) out.push({ ...names, id: 'server-names' });
  return out;
}
