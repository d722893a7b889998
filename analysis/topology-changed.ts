/** Whether the topology probe (replicas, instances...) read a change inside a step: the step is contaminated. */

/** Did the topology probe read more than one value between two times (s)? */
export function topologyChanged(
  samples: readonly { tS: number; phase: string; topology: number | null }[],
  phase: string,
  fromS: number,
  toS: number,
): { changed: boolean; values: number[] } {
  const values = [
    ...new Set(
      samples
        .filter((s) => s.phase === phase && s.tS >= fromS && s.tS <= toS && s.topology !== null)
        .map((s) => s.topology as number),
    ),
  ];
  return { changed: values.length > 1, values };
}
