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

/** Active on average at or above this share of the pool: at its limit (every connection busy at most readings). */
export const AT_LIMIT_SHARE = 0.9;

/**
 * Active on average at or above this many times what the requests keep busy (requestOccupancy):
 * the connections are held longer than the requests that use them last.
 */
export const HELD_FACTOR = 1.5;

/**
 * Every connection busy: the active gauge's mean over the window's readings at AT_LIMIT_SHARE of
 * the pool or more (at moderate load every connection is busy at some instant; a pool at its limit
 * is busy at most of them); its max only in runs recorded before the mean was kept.
 */
export function poolAtLimit(w: ServerWindow | null | undefined): boolean {
  const busy = w?.poolActiveMean ?? w?.poolActiveMax ?? null;
  return w != null && w.poolMax !== null && busy !== null && busy >= AT_LIMIT_SHARE * w.poolMax;
}

/**
 * What the pool gauges say: short of connections (someone waited), at its limit, or not a
 * constraint. At its limit with nobody waiting, the connections are "held by slow work" only on
 * evidence: active on average at least HELD_FACTOR x what the requests keep busy by Little's law
 * (they are held longer than the requests last: work outside them, another client of the pool, a
 * leak). Below that the load itself keeps them busy (700 req/s x 5.65 ms is 4 connections'
 * worth), and the reading says so; without the server's rate and mean, or the gauge's mean (runs
 * recorded before it was kept), it names no cause.
 */
export function poolReading(w: ServerWindow | null): string | null {
  if (!w || (w.poolActiveMax === null && w.poolPendingMax === null)) return null;
  const of = w.poolMax !== null ? ` of ${w.poolMax}` : '';
  const read = sampledText(w);
  if ((w.poolPendingMax ?? 0) > 0)
    return `short of connections: up to ${w.poolPendingMax} ${w.poolPendingMax === 1 ? 'request' : 'requests'} waited for one (active up to ${w.poolActiveMax ?? '?'}${of}) ${read}`;
  if (!poolAtLimit(w))
    return `pool not a constraint: active up to ${w.poolActiveMax ?? '?'}${of} ${read}, nobody waiting${littleText(w)}`;
  const mean = w.poolActiveMean ?? null;
  if (mean === null) return `near its limit: active up to ${w.poolActiveMax}${of} ${read}, nobody waiting`;
  const active = `active ${fmtActive(mean)}${of} on average (up to ${w.poolActiveMax}) ${read}`;
  const l = requestOccupancy(w);
  if (l === null) return `near its limit: ${active}, nobody waiting`;
  if (mean < HELD_FACTOR * l) return `near its limit from the load: ${active}, nobody waiting${littleText(w)}`;
  return `connections held by slow work: ${active} with nobody waiting, ${(mean / l).toFixed(1)}x the ${fmtOccupancy(l)} its requests keep busy (${fmtRate(w.throughputPerSec!)} req/s x ${fmtMs(w.meanMs)} ms, Little's law): they are held longer than the requests last (work outside them, another client of the pool, a leak)`;
}

/** "in 3 sampled readings"; "when sampled" where the window does not say how many (runs recorded before it did). */
function sampledText(w: ServerWindow): string {
  const n = w.poolReadings;
  return n === undefined ? 'when sampled' : `in ${n} sampled ${n === 1 ? 'reading' : 'readings'}`;
}

/**
 * "; 105.4 req/s x 5.26 ms: 0.55 requests in the server on average (Little's law), at most that
 * many connections busy", or nothing without the figures. The server's time includes any wait for a
 * connection, so the figure bounds the busy ones from above (a user read "keep at most 3.03 busy"
 * of a 3-slot pool as a pool over its size).
 */
function littleText(w: ServerWindow): string {
  const l = requestOccupancy(w);
  if (l === null) return '';
  return `; ${fmtRate(w.throughputPerSec!)} req/s x ${fmtMs(w.meanMs)} ms: ${fmtOccupancy(l)} requests in the server on average (Little's law), at most that many connections busy on average`;
}

function fmtOccupancy(v: number): string {
  return v.toFixed(v < 10 ? 2 : 1);
}

function fmtActive(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
