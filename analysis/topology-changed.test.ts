import { describe, expect, it } from 'vitest';
import { topologyChanged } from './topology-changed.ts';

describe('topologyChanged', () => {
  const s = (tS: number, topology: number | null) => ({ tS, phase: 'steps', topology });
  it('sees a change inside the interval only', () => {
    expect(topologyChanged([s(1, 2), s(3, 2), s(6.5, 3)], 'steps', 0, 5)).toEqual({ changed: false, values: [2] });
    expect(topologyChanged([s(1, 2), s(3, 3)], 'steps', 0, 5)).toEqual({ changed: true, values: [2, 3] });
  });

  it("reads the end edge's reading, which lands a moment after it, and no later one", () => {
    // read at 4 s and at the edge (5 s, its command done at 5.02 s): a change between them is this window's
    expect(topologyChanged([s(3.01, 2), s(4.01, 2), s(5.02, 3)], 'steps', 0, 5)).toEqual({
      changed: true,
      values: [2, 3],
    });
    // only the first reading past the edge stands for it; one over EDGE_TOLERANCE_S late stands for nothing
    expect(topologyChanged([s(4.01, 2), s(5.02, 2), s(5.9, 3)], 'steps', 0, 5).changed).toBe(false);
    expect(topologyChanged([s(4.01, 2), s(6.2, 3)], 'steps', 0, 5).changed).toBe(false);
    expect(topologyChanged([s(4.01, 2), s(5.02, null)], 'steps', 0, 5).changed).toBe(false);
  });
});
