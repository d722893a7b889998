/**
 * What the service's connection-pool gauges (metrics.pool: active, pending, max) say about one
 * window, in words for the server-side view's Pool column. Pure.
 *
 * The gauges are read at the window's readings only (its edges and every scrapeEveryS between
 * them, or Prometheus's own scrapes), so a max among a few readings can miss every busy moment
 * between them: 105 req/s at 5 ms keep half a connection busy on average, and three readings can
 * all find none. Each figure therefore says it was sampled, and where the window has the server's
 * rate and mean, Little's law gives what its requests keep busy on average: rate x mean server
 * time, at most (a request holds a connection for at most its whole time).
 */
import { fmtMs, fmtRate } from './format.ts';
import type { ServerWindow } from './types.ts';

/** The connections the window's requests keep busy on average, at most, by Little's law (X x W); null without both. */
export function requestOccupancy(w: ServerWindow): number | null {
  if (w.throughputPerSec === null || w.meanMs === null) return null;
  return (w.throughputPerSec * w.meanMs) / 1000;
}

/**
 * What the pool gauges say: short of connections, or connections held by slow work. "Held" is
 * judged on the mean of the active gauge over the window's readings (at most load every
 * connection is busy at some instant; a pool that holds its connections is busy at most of them);
 * on the max only in runs recorded before the mean was kept.
 */
export function poolReading(w: ServerWindow | null): string | null {
  if (!w || (w.poolActiveMax === null && w.poolPendingMax === null)) return null;
  const of = w.poolMax !== null ? ` of ${w.poolMax}` : '';
  const read = sampledText(w);
  if ((w.poolPendingMax ?? 0) > 0)
    return `short of connections: up to ${w.poolPendingMax} ${w.poolPendingMax === 1 ? 'request' : 'requests'} waited for one (active up to ${w.poolActiveMax ?? '?'}${of}) ${read}`;
  const busy = w.poolActiveMean === undefined ? w.poolActiveMax : w.poolActiveMean;
  if (w.poolMax !== null && busy !== null && busy >= 0.9 * w.poolMax)
    return w.poolActiveMean === undefined
      ? `connections held by slow work: active ${w.poolActiveMax}${of} ${read} with nobody waiting; the time goes upstream of the pool`
      : `connections held by slow work: active ${fmtActive(busy)}${of} on average (up to ${w.poolActiveMax}) ${read} with nobody waiting; the time goes upstream of the pool`;
  return `pool not a constraint: active up to ${w.poolActiveMax ?? '?'}${of} ${read}, nobody waiting${littleText(w)}`;
}

/** "in 3 sampled readings"; "when sampled" where the window does not say how many (runs recorded before it did). */
function sampledText(w: ServerWindow): string {
  const n = w.poolReadings;
  return n === undefined ? 'when sampled' : `in ${n} sampled ${n === 1 ? 'reading' : 'readings'}`;
}

/** "; 105.4 req/s x 5.26 ms keep at most 0.55 busy on average (Little's law)", or nothing without the figures. */
function littleText(w: ServerWindow): string {
  const l = requestOccupancy(w);
  if (l === null) return '';
  return `; ${fmtRate(w.throughputPerSec!)} req/s x ${fmtMs(w.meanMs)} ms keep at most ${fmtOccupancy(l)} busy on average (Little's law)`;
}

function fmtOccupancy(v: number): string {
  return v.toFixed(v < 10 ? 2 : 1);
}

function fmtActive(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
