import { describe, expect, it } from 'vitest';
import { topologyChanged } from './topology-changed.ts';

describe('topologyChanged', () => {
  const s = (tS: number, topology: number | null) => ({ tS, phase: 'steps', topology });
  it('sees a change inside the interval only', () => {
    expect(topologyChanged([s(1, 2), s(3, 2), s(6, 3)], 'steps', 0, 5)).toEqual({ changed: false, values: [2] });
    expect(topologyChanged([s(1, 2), s(3, 3)], 'steps', 0, 5)).toEqual({ changed: true, values: [2, 3] });
  });
});
