/**
 * The traffic of a run that records no mix (an import of the user's own k6 script, whose iterations
 * plateau never saw defined; a run recorded before mixes), told by the names its requests carried
 * and each name's share of the requests over every steady window. Two imports of one script name
 * the same requests in about the same shares; a script that sends other requests, or the same in
 * other proportions, is other traffic, whose capacity is another figure. Pure.
 */
import type { RunResult } from '../types.ts';
import { firstFew, pct } from './share-text.ts';
import { FOLDED_ROW, isFoldedRow } from '../names-limit.ts';

/** Shares further apart than this (of all requests) are another proportion, not sampling noise. */
export const SHARE_APART = 0.05;

/** The name as runs are compared: an import's folded row under one key, whatever its count. */
function nameKey(name: string): string {
  return isFoldedRow(name) ? FOLDED_ROW : name;
}

/** Each request name's share of the requests of every steady window; null where the run recorded one name. */
export function requestShares(r: Pick<RunResult, 'steps'>): Map<string, number> | null {
  const counts = new Map<string, number>();
  for (const s of r.steps)
    for (const [name, n] of Object.entries(s.byName ?? {}))
      if (!n.transaction) counts.set(nameKey(name), (counts.get(nameKey(name)) ?? 0) + n.completed);
  const total = [...counts.values()].reduce((a, n) => a + n, 0);
  if (counts.size === 0 || total === 0) return null;
  return new Map([...counts].map(([name, n]) => [name, n / total]));
}

/**
 * How the requests of `b` differ from `a`'s by name, where either run records no mix (where both
 * do, mixDifference tells, by their entries): the names only one run sent, and the shares that
 * moved by more than SHARE_APART. Null when they agree, or neither tells (one name each).
 */
export function requestNamesDifference(
  a: Pick<RunResult, 'steps' | 'traffic'>,
  b: Pick<RunResult, 'steps' | 'traffic'>,
  [la, lb]: readonly [string, string] = ['A', 'B'],
): string | null {
  if ((a.traffic?.entries.length ?? 0) > 0 && (b.traffic?.entries.length ?? 0) > 0) return null;
  const x = requestShares(a),
    y = requestShares(b);
  if (x === null && y === null) return null;
  const why =
    "a capacity is a property of the traffic; compare runs of one script (a k6 import records no mix, only its requests' names)";
  const listed = (m: Map<string, number>) =>
    firstFew([...m].sort((p, q) => q[1] - p[1]).map(([name, share]) => `${name} ${pct(share)}`));
  if (x === null || y === null) {
    const [one, many, m] = x === null ? [la, lb, y!] : [lb, la, x];
    return `requests by name differ: ${one}'s carry one name, ${many}'s ${m.size} (${listed(m)}): ${why}`;
  }
  const only = (m: Map<string, number>, other: Map<string, number>) =>
    [...m].filter(([name]) => !other.has(name)).map(([name, share]) => `${name} ${pct(share)}`);
  const moved = [...x]
    .filter(([name, share]) => y.has(name) && Math.abs(share - y.get(name)!) > SHARE_APART)
    .map(([name, share]) => `${name} ${pct(share)} → ${pct(y.get(name)!)}`);
  const parts = [
    ...[only(x, y)].filter((l) => l.length > 0).map((l) => `only in ${la}: ${firstFew(l)}`),
    ...[only(y, x)].filter((l) => l.length > 0).map((l) => `only in ${lb}: ${firstFew(l)}`),
    ...(moved.length > 0 ? [`share of the requests from ${la} to ${lb}: ${firstFew(moved)}`] : []),
  ];
  return parts.length > 0 ? `requests by name differ (${parts.join('; ')}): ${why}` : null;
}
