/**
 * The valid name a misspelt one most likely meant: the closest by edit distance (case ignored),
 * or one that the given name starts with ("holdSeconds" -> "holdS"). None when nothing is close.
 */
export function nearest(given: string, candidates: readonly string[]): string | undefined {
  const g = given.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const n = name.toLowerCase();
    // a longer spelling of a short key (holdSeconds for holdS) is as good as a typo
    const d = n.length >= 3 && (g.startsWith(n) || n.startsWith(g)) && g.length >= 3 ? 1 : distance(g, n);
    if (!best || d < best.d) best = { name, d };
  }
  // at most a third of the name wrong, and never more than 3 edits
  return best && best.d <= Math.min(3, Math.max(1, Math.floor(given.length / 3))) ? best.name : undefined;
}

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
