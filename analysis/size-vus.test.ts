import { describe, expect, it } from 'vitest';
import { sizeVus } from './plan.ts';
import { sampledArrivalMs } from './arrival-time.ts';

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
  it("from preflight's sample arrivals (a transaction's own time) before any warmup, said so", () => {
    const v = sizeVus(config, 0.6, 1865, 'arrivals/s', 'samples');
    expect(v.preAllocatedVUs).toBe(3730); // 1000/s x 1865 ms x 2
    expect(v.reason).toBe(
      "Little's law: 1000 arrivals/s x 1865.0 ms per arrival (each transaction's own time in preflight's sample arrivals, think time included; a request 50 ms expected service + 0.60 ms RTT) x headroom 2 = 3730 preallocated; max 4x; capped at limits.maxInFlight 10000",
    );
  });
  it('never from a measured time that is not a positive number', () => {
    expect(sizeVus(config, 0.6, Number.NaN).preAllocatedVUs).toBe(102);
    expect(sizeVus(config, 0.6, 0).preAllocatedVUs).toBe(102);
  });
  it('a given max alone keeps the preallocated sized, from the warmup too, capped by the max', () => {
    const only = (vus: object) => ({ ...config, vus: { ...config.vus, ...vus } });
    const v = sizeVus(only({ max: 3000 }), 0.6, 300);
    expect(v).toMatchObject({ preAllocatedVUs: 600, maxVUs: 3000, configuredMax: 3000 });
    expect(v.reason).toBe(
      "preallocated by Little's law: 1000 arrivals/s x 300.0 ms per arrival measured in the warmup (think time and round trip included) x headroom 2 = 600; max 3000 given (vus.max, --max-vus)",
    );
    const capped = sizeVus(only({ max: 500 }), 0.6, 300);
    expect(capped).toMatchObject({ preAllocatedVUs: 500, maxVUs: 500 });
    expect(capped.reason).toMatch(/= 600, capped at the given max; max 500 given/);
    expect(sizeVus(only({ max: 500 }), 0.6).reason).toMatch(
      /^preallocated by Little's law: 1000 req\/s x \(50 ms expected service \+ 0\.60 ms RTT\) x headroom 2 = 102; max 500 given/,
    );
  });
  it('a given preallocated alone keeps the max sized, 4x, from the warmup too', () => {
    const only = (vus: object) => ({ ...config, vus: { ...config.vus, ...vus } });
    const v = sizeVus(only({ preAllocated: 100 }), 0.6, 300);
    expect(v).toMatchObject({ preAllocatedVUs: 100, maxVUs: 2400 });
    expect(v.configuredMax).toBeUndefined();
    expect(v.reason).toMatch(
      /^preallocated 100 given \(vus\.preAllocated, --vus\); max 4 x 600, by Little's law: 1000 arrivals\/s x 300\.0 ms/,
    );
    const above = sizeVus(only({ preAllocated: 5000 }), 0.6, 300);
    expect(above).toMatchObject({ preAllocatedVUs: 5000, maxVUs: 5000 });
    expect(above.reason).toMatch(/max as many, the given preallocated being at least 4 x 600 \(Little's law/);
  });
  it('both given: as given, whatever was measured', () => {
    const v = sizeVus({ ...config, vus: { ...config.vus, preAllocated: 10, max: 20 } }, 0.6, 300);
    expect(v).toMatchObject({ preAllocatedVUs: 10, maxVUs: 20 });
    expect(v.reason).toBe("set in the config (preAllocated 10, max 20); Little's law suggested 600");
  });
});

describe("the time per arrival of preflight's sample arrivals (a review: 6 s sessions sized for 50 ms requests)", () => {
  const entries = [
    { name: 'browse', weight: 70, transaction: false },
    { name: 'session', weight: 30, transaction: true },
  ];
  it("weighs each transaction's own sample time with the plan's time of a request", () => {
    expect(sampledArrivalMs(entries, new Map([['session', 6100]]), 50)).toBeCloseTo(0.7 * 50 + 0.3 * 6100, 9);
  });
  it('none where no transaction was sampled, or not longer than the plan', () => {
    expect(sampledArrivalMs(entries, new Map(), 50)).toBeNull();
    expect(sampledArrivalMs(entries, new Map([['session', 40]]), 50)).toBeNull();
    expect(sampledArrivalMs([entries[0]], new Map([['browse', 900]]), 50)).toBeNull();
  });
});
