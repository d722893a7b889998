/**
 * The key-space spread of the k6 runtime: k = ((seq x 2654435761) mod 2^32) mod keySpace, the
 * same Knuth hash as harness/scenario/context.ts spread() (which imports node:crypto, so k6 cannot
 * bundle it); a test holds the two equal.
 */
export function spread(seq: number, keySpace: number): number {
  return (Math.imul(seq, 2654435761) >>> 0) % keySpace;
}
