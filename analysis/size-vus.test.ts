import { describe, expect, it } from 'vitest';
import { sizeVus } from './plan.ts';

const config = {
  vus: { expectedServiceMs: 50, headroom: 2 },
  steps: { maxPerSec: 1000 },
  limits: { maxInFlight: 10_000 },
} as Parameters<typeof sizeVus>[0];

describe("Little's law sizes the VUs", () => {
  it('from the expected service time and the RTT before any load', () => {
    const v = sizeVus(config, 0.6);
    expect(v.preAllocatedVUs).toBe(102); // 1000/s x 50.6 ms x 2
    expect(v.maxVUs).toBe(408);
    expect(v.reason).toMatch(/50 ms expected service \+ 0.60 ms RTT/);
  });
  it("from the warmup's measured time per arrival (round trip included) when given", () => {
    const v = sizeVus(config, 0.6, 300);
    expect(v.preAllocatedVUs).toBe(600); // 1000/s x 300 ms x 2
    expect(v.maxVUs).toBe(2400);
    expect(v.reason).toMatch(/300.0 ms per arrival measured in the warmup/);
  });
  it('never from a measured time that is not a positive number', () => {
    expect(sizeVus(config, 0.6, Number.NaN).preAllocatedVUs).toBe(102);
    expect(sizeVus(config, 0.6, 0).preAllocatedVUs).toBe(102);
  });
});
