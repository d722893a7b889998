/**
 * A server percentile interpolated inside a wide bucket can land above every request the window
 * held (p99 533 ms in a 447-537 ms bucket whose slowest request took 488 ms). No percentile
 * exceeds the window's slowest request, so each is capped at the values known to bound it:
 *
 *   the server's max  the window's max gauge (ServerWindow.maxMs): a gauge of its own window,
 *                     often minutes and decaying, so at least this window's slowest request
 *                     (and, after a slower step, well above it)
 *   the client's max  its slowest request over the same steady window, where it bounds the
 *                     percentile (clientBoundMs): each request's duration (sending + waiting +
 *                     receiving) holds the server's time of it; the RTT is never subtracted (the
 *                     fastest round trip includes /ping's own handling, so it is no floor of
 *                     another request's network time)
 *
 * The lower of the two caps it (the server's on a tie). A bound below the percentile's bucket is
 * no bound of it (the bucket holds at least one of the window's requests, above its lower bound:
 * a gauge that decayed, a misread unit) and is left out. A capped value is an upper bound, not an
 * estimate: it keeps interpolatedMs and says what capped it (cappedBy). Pure.
 */
import type { CrossCheck, PercentileCap, ServerPercentile, ServerWindow } from './types.ts';

export interface Bound {
  ms: number;
  by: PercentileCap;
}

/** What the client timed over the step's steady window [fromS, toS) (completions), for its max to bound the server's. */
export interface ClientSpan {
  /** Its slowest successful request (ms); null without one. */
  maxMs: number | null;
  /** Its requests per second, as the cross-check compared them, and the failed share of them. */
  perSec: number;
  failedShare: number;
  fromS: number;
  toS: number;
  verdict: CrossCheck['verdict'];
}

/**
 * The client's max as a bound of the server's q-th percentile (ms), or null where it is none: it
 * covers the requests the client timed, so it bounds the percentile while fewer than a (1 - q)
 * share of the server's requests can lie outside them. Not at all where any request failed (a
 * failure's time, or a timeout the server finished later, is not in the max) or where the
 * cross-check found the series slower than the client or unread; else the requests counted beyond
 * the client's rate, and those in the server's window outside the client's seconds (its edges are
 * readings up to a second away), must be fewer than that share.
 */
export function clientBoundMs(c: ClientSpan, w: ServerWindow, p: ServerPercentile): number | null {
  if (c.maxMs === null || c.failedShare > 0 || w.throughputPerSec === null) return null;
  if (c.verdict === 'traffic-extra' || c.verdict === 'no-data') return null;
  const x = w.throughputPerSec;
  const beyondRate = Math.max(0, x - c.perSec) * (w.toS - w.fromS);
  const outsideSeconds = x * (Math.max(0, c.fromS - w.fromS) + Math.max(0, w.toS - c.toS));
  return beyondRate + outsideSeconds < (1 - p.q / 100) * p.n ? c.maxMs : null;
}

/** p capped at the lowest bound at or above its bucket's lower bound (the first of equals), where it lies above it. */
export function capPercentile(p: ServerPercentile, bounds: readonly Bound[]): ServerPercentile {
  // the +Inf bucket's value is its lower bound already; an empty window has none
  if (p.valueMs === null || p.upperMs === null) return p;
  const b = bounds.filter((x) => x.ms >= p.lowerMs).reduce<Bound | null>((a, x) => (a && a.ms <= x.ms ? a : x), null);
  if (!b || b.ms >= p.valueMs) return p;
  return { ...p, valueMs: b.ms, cappedBy: b.by, interpolatedMs: p.valueMs };
}

/** The window with each percentile capped (the file comment); the window itself where nothing changes. */
export function capWindow(w: ServerWindow | null, client: ClientSpan | null): ServerWindow | null {
  if (!w?.percentiles?.length) return w;
  const capped = w.percentiles.map((p) => {
    const clientMs = client ? clientBoundMs(client, w, p) : null;
    const bounds: Bound[] = [
      ...(w.maxMs !== null ? [{ ms: w.maxMs, by: 'server-max' as const }] : []),
      ...(clientMs !== null ? [{ ms: clientMs, by: 'client-max' as const }] : []),
    ];
    return capPercentile(p, bounds);
  });
  return capped.some((p, i) => p !== w.percentiles![i]) ? { ...w, percentiles: capped } : w;
}
