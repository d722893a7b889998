/** Whether the topology probe (replicas, instances...) read a change inside a step: the step is contaminated. */
import { EDGE_TOLERANCE_S } from './server-window.ts';

type TopologyReading = { tS: number; phase: string; topology: number | null };

/**
 * Did the topology probe read more than one value between two times (s)? The reading that stands
 * for the end edge counts too, though it lands a moment after it (a reading's time is the middle of
 * its command's run): without it a change in the window's last `everyS` seconds was read by no
 * step at all, the next one seeing only the new value.
 */
export function topologyChanged(
  samples: readonly TopologyReading[],
  phase: string,
  fromS: number,
  toS: number,
): { changed: boolean; values: number[] } {
  const read = samples.filter((s) => s.phase === phase && s.topology !== null);
  const inside = read.filter((s) => s.tS >= fromS && s.tS <= toS);
  const end = endEdge(read, toS);
  const values = [...new Set([...inside, ...(end ? [end] : [])].map((s) => s.topology as number))];
  return { changed: values.length > 1, values };
}

/** The first reading after toS, when within EDGE_TOLERANCE_S of it: the window's end edge. */
function endEdge(read: readonly TopologyReading[], toS: number): TopologyReading | null {
  let best: TopologyReading | null = null;
  for (const s of read) if (s.tS > toS && s.tS - toS <= EDGE_TOLERANCE_S && (!best || s.tS < best.tS)) best = s;
  return best;
}
