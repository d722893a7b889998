/**
 * The roundest whole number near a fitted rate: a derived plan's start and step are the numbers a
 * user would have typed (50, not 49), within the fit's uncertainty.
 */

/** The whole number within `within` of x (at least the nearest) with the most factors of 10 and 5; the nearest on ties. */
export function roundest(x: number, within: number): number {
  const nearest = Math.round(x);
  let best = nearest;
  let bestScore = roundness(nearest);
  for (let v = Math.ceil(x - within); v <= Math.floor(x + within); v++) {
    const score = roundness(v);
    if (score > bestScore || (score === bestScore && Math.abs(v - x) < Math.abs(best - x))) {
      best = v;
      bestScore = score;
    }
  }
  return best;
}

function roundness(v: number): number {
  if (v === 0) return 0;
  let score = 0;
  for (let d = 10; v % d === 0 && score < 12; d *= 10) score += 2;
  return v % (5 * 10 ** (score / 2)) === 0 ? score + 1 : score;
}
