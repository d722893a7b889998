/**
 * What the service's connection-pool gauges (metrics.pool: active, pending, max) say about one
 * window, in words for the server-side view's Pool column. Pure.
 */
import type { ServerWindow } from './types.ts';

/**
 * What the pool gauges say: short of connections, or connections held by slow work. "Held" is
 * judged on the mean of the active gauge over the window's readings (at most load every
 * connection is busy at some instant; a pool that holds its connections is busy at most of them);
 * on the max only in runs recorded before the mean was kept.
 */
export function poolReading(w: ServerWindow | null): string | null {
  if (!w || (w.poolActiveMax === null && w.poolPendingMax === null)) return null;
  const of = w.poolMax !== null ? ` of ${w.poolMax}` : '';
  if ((w.poolPendingMax ?? 0) > 0)
    return `short of connections: up to ${w.poolPendingMax} ${w.poolPendingMax === 1 ? 'request' : 'requests'} waited for one (active up to ${w.poolActiveMax ?? '?'}${of})`;
  const busy = w.poolActiveMean === undefined ? w.poolActiveMax : w.poolActiveMean;
  if (w.poolMax !== null && busy !== null && busy >= 0.9 * w.poolMax)
    return w.poolActiveMean === undefined
      ? `connections held by slow work: active ${w.poolActiveMax}${of} with nobody waiting; the time goes upstream of the pool`
      : `connections held by slow work: active ${fmtActive(busy)}${of} on average (up to ${w.poolActiveMax}) with nobody waiting; the time goes upstream of the pool`;
  return `pool not a constraint: active up to ${w.poolActiveMax ?? '?'}${of}, nobody waiting`;
}

function fmtActive(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
