import { describe, expect, it } from 'vitest';
import { serverSampleOf } from './testing/builders.ts';
import { serverMeanReliable, serverRequests } from './server-mean.ts';
import { serverWindow } from './server-window.ts';

const sample = serverSampleOf;

describe("a server mean's requests: how many it rests on, and whether that is enough", () => {
  it("counts the window's requests from its readings (b2's step 6: one request over 3.999 s), a mean of fewer than rules.minTailSamples untrusted", () => {
    const one = serverWindow([sample(56.006, 40_000, 800), sample(60.005, 40_001, 800.000449)], 'steps', 56, 60)!;
    expect(one.throughputPerSec).toBeCloseTo(0.25006, 5);
    expect(serverRequests(one)).toBe(1);
    expect(serverMeanReliable(one, 30)).toBe(false);
    const w = serverWindow([sample(9.98, 1000, 10), sample(15.02, 2008, 20.08)], 'steps', 10, 15)!;
    expect(serverRequests(w)).toBe(1008);
    expect(serverMeanReliable(w, 30)).toBe(true);
    expect(serverMeanReliable(w, 1009)).toBe(false);
    expect(serverRequests({ ...w, throughputPerSec: null })).toBeNull();
    expect(serverMeanReliable({ ...w, throughputPerSec: null }, 30)).toBe(false);
  });
});
