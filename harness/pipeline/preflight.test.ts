import { describe, expect, it } from 'vitest';
import { longestId } from './preflight.ts';
import { contextFactory } from '../scenario/context.ts';
import { runIds } from '../environment.ts';

describe("preflight's longest id", () => {
  it("is built from the run's id key: a given run id's suffix counts against ids.maxLength", () => {
    const { idKey } = runIds('checkout-nightly', new Date('2026-11-29T17:22:33Z'));
    const longest = longestId('ord-', idKey, 123_456, 1);
    // what the load's last arrival sends, 11 characters more than prefix + run id + seq
    expect(longest).toBe(contextFactory('checkout-nightly', 'ord-', {}, { idKey })(123_456).uniqueId());
    expect(longest).toHaveLength('ord-checkout-nightly-123456'.length + 11);
  });

  it("a short plan's longest is a sample arrival's (p<entry>- after the prefix)", () => {
    expect(longestId('ord-', 'r2-t5a3kx0q7c', 9, 3)).toBe('ord-p2-r2-t5a3kx0q7c-0');
  });

  it('a generated run id: prefix, run id and seq, as before', () => {
    expect(longestId('ord-', '20261129-172233-a1f3', 4_000, 1)).toBe('ord-20261129-172233-a1f3-4000');
  });
});
