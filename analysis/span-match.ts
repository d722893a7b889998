/**
 * The client's figures over the span a server window was read over (docs/decisions/067, 068). A
 * server window runs from its first reading to its last: the direct readings sit within a few ms
 * of the steady window's edges, but through PromQL the span runs between Prometheus's own scrapes
 * (3.96-6.96 s of a 3-7 s window). Compared with the client's whole steady window, a step whose
 * latency varied inside it (15 ms, then 58, 58, 17 ms per second) read a server mean 6 ms above the
 * client's and "other traffic in it?": the spans differed, not the traffic. So the client is read
 * over the same span, in the whole seconds its buckets hold, and what those seconds cannot match
 * widens the tolerance:
 *
 *   [A, B)   = [round(a), round(b)): the whole seconds nearest the server's span [a, b]; a span
 *              with none (round(a) = round(b), under a second: 3.6-3.9 s) is not read
 *   X        = requests completed in [A, B) / (B - A); mean = their successes' mean duration
 *   share    = sum over both edges of g_e x |c(s_e) - X| / ((b - a) x X)
 *   slackMs  = sum over both edges of g_e x n(s_e) x |mean(s_e) - mean| / N'
 *   N'       = N + sum over both edges of (+/-) g_e x n(s_e)
 *
 * where g_e is the edge's gap (|a - A|, |b - B|, at most half a second), s_e the second its
 * unmatched slice lies in, c(s_e) its requests, n(s_e) and mean(s_e) its successes and their mean,
 * N the successes over [A, B); + for a slice only the server's span holds (a < A, b > B), - for one
 * only the client's seconds hold. With each second's requests spread evenly over it, the server's
 * figures are over b - a seconds and N' successes, and each slice moves the rate by at most
 * g_e x |c(s_e) - X| / (b - a) (an empty one by g_e x X / (b - a)) and the mean by at most
 * g_e x n(s_e) x |mean(s_e) - mean| / N': `share` (relative to X) bounds the rate's move, and
 * widens the throughput tolerance as the edge readings' own time does (edgeSpreadS), `slackMs` the
 * mean's. Over (B - A) and N, a slice the server lacks was understated by (B - A) / (b - a): a burst
 * of 1000 between seconds of 20, read over 2.45-4.55 s, moved the rate 40% against a 28% share
 * (review G1). X is per second of [A, B) whether or not the client wrote a bucket in each, as the
 * server's rate is per second of its span, also where [A, B) is the steady window (overSpan). Pure.
 */
import { meanUs } from './histogram.ts';
import { aggregate, type Aggregate } from './buckets.ts';
import { STEPS_PHASE } from './phases.ts';
import type { AnalysedRecord, ServerWindow } from './types.ts';

/** What the client's whole seconds leave unmatched of a server window's span. */
export interface SpanSlack {
  /** The share of the span's length they do not match (widens the throughput tolerance). */
  share: number;
  /** ms the means may differ by from the unmatched slices alone (widens the mean tolerance). */
  meanMs: number;
  /** The whole seconds the client was read over, where they are not its steady window's (said in the words). */
  seconds?: { fromS: number; toS: number };
}

export const NO_SLACK: SpanSlack = { share: 0, meanMs: 0 };

/** The client over a server window's span: its seconds, its figures there, and the slack. */
export interface SpanFigures {
  /** The whole seconds [fromS, toS) read. */
  fromS: number;
  toS: number;
  /** Requests (or arrivals) completed per second over them. */
  perSec: number;
  /** Mean duration of their successes (ms); null without one. */
  meanMs: number | null;
  slack: SpanSlack;
}

/** Sums of one series of the client's (the step's requests, or one name's) over some seconds. */
interface Sums {
  count: number;
  ok: number;
  meanMs: number | null;
}

type SumsOf = (agg: Aggregate) => Sums;

/** A server window's span (seconds on the steps' clock). */
type Span = Pick<ServerWindow, 'fromS' | 'toS'>;

/** The step's requests: every request of every arrival where the buckets counted them apart, else arrivals. */
const stepSums: SumsOf = (agg) => ({
  count: agg.requestsCounted ? agg.requests : agg.completed,
  ok: agg.hist.duration.totalCount,
  meanMs: agg.hist.duration.totalCount > 0 ? meanUs(agg.hist.duration) / 1000 : null,
});

function nameSums(name: string): SumsOf {
  return (agg) => {
    const n = agg.byName.get(name);
    if (!n) return { count: 0, ok: 0, meanMs: null };
    const d = n.duration;
    return { count: n.completed, ok: d.totalCount, meanMs: d.totalCount > 0 ? meanUs(d) / 1000 : null };
  };
}

/**
 * Reads the client over server windows' spans, each set of seconds aggregated once (a step and
 * its mapped names share them).
 */
export class SpanReader {
  private readonly cache = new Map<string, Aggregate>();

  constructor(private readonly records: readonly AnalysedRecord[]) {}

  private over(fromS: number, toS: number): Aggregate {
    const key = `${fromS}:${toS}`;
    let agg = this.cache.get(key);
    if (!agg) this.cache.set(key, (agg = aggregate(this.records, STEPS_PHASE, fromS, toS)));
    return agg;
  }

  /** The step's requests over `w`'s span; null without a span to read. */
  step(w: Span): SpanFigures | null {
    return this.figures(w, stepSums);
  }

  /** One name's over `w`'s span. */
  name(w: Span, name: string): SpanFigures | null {
    return this.figures(w, nameSums(name));
  }

  private figures(w: Span, pick: SumsOf): SpanFigures | null {
    if (!(w.toS > w.fromS)) return null;
    const fromS = Math.round(w.fromS);
    const toS = Math.round(w.toS);
    // no whole second nearest both edges (review G2): 3.6-3.9 s would be read over second 4, which it never touches
    if (toS <= fromS) return null;
    const all = pick(this.over(fromS, toS));
    // per second of the span, as the server counts, whether or not the client wrote a bucket in each (review G15)
    const perSec = all.count / (toS - fromS);
    const slices = edgeSlices(w, fromS, toS).map((e) => ({ ...e, sums: pick(this.over(e.second, e.second + 1)) }));
    return { fromS, toS, perSec, meanMs: all.meanMs, slack: slackOf(w.toS - w.fromS, all, perSec, slices) };
  }
}

/** A slice of one second that one side's figures hold and the other's lack. */
interface Slice {
  gapS: number;
  second: number;
  /** Held by the server's span alone (it began before the client's seconds, or ended after them). */
  serverOnly: boolean;
}

/** The span's edges where they are not the whole seconds [fromS, toS): each at most half a second. */
function edgeSlices(w: Span, fromS: number, toS: number): Slice[] {
  const slices: Slice[] = [
    { gapS: Math.abs(w.fromS - fromS), second: w.fromS < fromS ? fromS - 1 : fromS, serverOnly: w.fromS < fromS },
    { gapS: Math.abs(w.toS - toS), second: w.toS < toS ? toS - 1 : toS, serverOnly: w.toS > toS },
  ];
  return slices.filter((s) => s.gapS > 0);
}

/**
 * The header's `share` and `slackMs`: each slice's move over the server's span `spanS` and its
 * successes, which lack the client-only slices (a slice at the span's own rate and mean moves
 * neither). N' > 0 wherever N > 0: the client-only slices never hold all of N (the start's is
 * under half its second, the end's at most half, and the two in one second under all of it).
 */
function slackOf(spanS: number, all: Sums, perSec: number, slices: readonly (Slice & { sums: Sums })[]): SpanSlack {
  let requests = 0;
  let serverOk = all.ok;
  let weightedMs = 0;
  for (const { gapS, serverOnly, sums } of slices) {
    requests += gapS * Math.abs(sums.count - perSec);
    serverOk += (serverOnly ? 1 : -1) * gapS * sums.ok;
    if (all.meanMs !== null && sums.meanMs !== null) weightedMs += gapS * sums.ok * Math.abs(sums.meanMs - all.meanMs);
  }
  return { share: requests / (spanS * perSec || 1), meanMs: all.ok > 0 && serverOk > 0 ? weightedMs / serverOk : 0 };
}

/**
 * The client's figures as the cross-check compares them with `w`: over its span's whole seconds
 * (read by `read`), with what they leave unmatched of it, named in the words where they are not
 * the steady window's whole seconds `steadyS`; the step's own (`steady`) where nothing can be read.
 * Where the seconds are the steady window's, the span's figures still stand: the step's rates are
 * per second holding a bucket, these per second of the span, as the server's (review G15).
 */
export function overSpan(
  steadyS: { fromS: number; toS: number },
  w: ServerWindow | null,
  read: ((span: ServerWindow) => SpanFigures | null) | undefined,
  steady: { perSec: number; meanMs: number | null },
): { perSec: number; meanMs: number | null; slack: SpanSlack } {
  const span = w && w.throughputPerSec !== null && read ? read(w) : null;
  if (!span) return { ...steady, slack: NO_SLACK };
  const own = span.fromS === steadyS.fromS && span.toS === steadyS.toS;
  return {
    perSec: span.perSec,
    meanMs: span.meanMs,
    slack: own ? span.slack : { ...span.slack, seconds: { fromS: span.fromS, toS: span.toS } },
  };
}
