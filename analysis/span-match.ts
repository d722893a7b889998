/**
 * The client's figures over the span a server window was read over (docs/decisions/067). A
 * server window runs from its first reading to its last: the direct readings sit within a few ms
 * of the steady window's edges, but through PromQL the span runs between Prometheus's own scrapes
 * (3.96-6.96 s of a 3-7 s window). Compared with the client's whole steady window, a step whose
 * latency varied inside it (15 ms, then 58, 58, 17 ms per second) read a server mean 6 ms above the
 * client's and "other traffic in it?": the spans differed, not the traffic. So the client is read
 * over the same span, in the whole seconds its buckets hold, and what those seconds cannot match
 * widens the tolerance:
 *
 *   [A, B)   = [round(a), round(b)): the whole seconds nearest the server's span [a, b]
 *   X        = requests completed in [A, B) / (B - A); mean = their successes' mean duration
 *   share    = sum over both edges of g_e x max(c(s_e), X) / ((B - A) x X)
 *   slackMs  = sum over both edges of g_e x n(s_e) / N x |mean(s_e) - mean|
 *
 * where g_e is the edge's gap (|a - A|, |b - B|, at most half a second), s_e the second its
 * unmatched slice lies in, c(s_e) its requests, n(s_e) and mean(s_e) its successes and their mean,
 * N the successes over [A, B). The slice is in one side's count and mean and not the other's. Its
 * requests, spread evenly over their second, move the rate by g_e x |c(s_e) - X| / (B - A) and the
 * mean by their weight times their distance from it; an empty slice moves the rate by g_e x X /
 * (B - A); `share` (relative to X) bounds both, and widens the throughput tolerance as the edge
 * readings' own time does (edgeSpreadS), `slackMs` the mean's. Pure.
 */
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
  meanMs: agg.hist.duration.totalCount > 0 ? agg.hist.duration.mean / 1000 : null,
});

function nameSums(name: string): SumsOf {
  return (agg) => {
    const n = agg.byName.get(name);
    if (!n) return { count: 0, ok: 0, meanMs: null };
    const d = n.duration;
    return { count: n.completed, ok: d.totalCount, meanMs: d.totalCount > 0 ? d.mean / 1000 : null };
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
    const toS = Math.max(fromS + 1, Math.round(w.toS));
    const all = pick(this.over(fromS, toS));
    const lengthS = toS - fromS;
    const startGapS = Math.abs(w.fromS - fromS);
    const endGapS = Math.abs(w.toS - toS);
    // the unmatched slice at the start lies in the second before A (the server began earlier) or in A itself
    const startSecond = w.fromS < fromS ? fromS - 1 : fromS;
    const endSecond = w.toS < toS ? toS - 1 : toS;
    const perSec = all.count / lengthS;
    const start = this.edge(startGapS, startSecond, all, perSec, pick);
    const end = this.edge(endGapS, endSecond, all, perSec, pick);
    return {
      fromS,
      toS,
      perSec,
      meanMs: all.meanMs,
      slack: { share: (start.requests + end.requests) / (lengthS * perSec || 1), meanMs: start.meanMs + end.meanMs },
    };
  }

  /**
   * One edge's unmatched slice: the requests it may move the count by, and the ms it may move the
   * mean by. Each is the slice's share times how far its second stood from the span: a slice at the
   * span's own rate and mean moves neither (a whole slice's requests, at steady load, had widened
   * the throughput's tolerance by a third where PromQL's scrapes fell half a second off the seconds).
   */
  private edge(
    gapS: number,
    second: number,
    all: Sums,
    perSec: number,
    pick: SumsOf,
  ): { requests: number; meanMs: number } {
    if (gapS === 0) return { requests: 0, meanMs: 0 };
    const s = pick(this.over(second, second + 1));
    const requests = gapS * Math.abs(s.count - perSec);
    if (all.meanMs === null || all.ok === 0 || s.meanMs === null) return { requests, meanMs: 0 };
    return { requests, meanMs: ((gapS * s.ok) / all.ok) * Math.abs(s.meanMs - all.meanMs) };
  }
}

/**
 * The client's figures as the cross-check compares them with `w`: over its span's whole seconds
 * where they are not the steady window's whole seconds `steadyS` (read by `read`), with what they leave unmatched of it;
 * the steady window's own (`steady`) where they are, or where nothing can be read.
 */
export function overSpan(
  steadyS: { fromS: number; toS: number },
  w: ServerWindow | null,
  read: ((span: ServerWindow) => SpanFigures | null) | undefined,
  steady: { perSec: number; meanMs: number | null },
): { perSec: number; meanMs: number | null; slack: SpanSlack } {
  const span = w && w.throughputPerSec !== null && read ? read(w) : null;
  if (!span) return { ...steady, slack: NO_SLACK };
  if (span.fromS === steadyS.fromS && span.toS === steadyS.toS) return { ...steady, slack: span.slack };
  return {
    perSec: span.perSec,
    meanMs: span.meanMs,
    slack: { ...span.slack, seconds: { fromS: span.fromS, toS: span.toS } },
  };
}
