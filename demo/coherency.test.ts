/**
 * The busy-count average the coherency penalty follows, and why it is averaged: a simulation of
 * the demo's collapse mode under an open model (16 slots, a FIFO queue, holdMs 10, beta 0.1, peak
 * 187.5 req/s) with arrivals evenly spaced but each delayed by up to 20 ms, as a busy event loop
 * delays them.
 */
import { describe, expect, it } from 'vitest';
import { BusyAverage, heldMs, peakOf, progressiveHold, type CoherencyModel } from './coherency.ts';

describe('BusyAverage', () => {
  it('converges to a sustained busy count and forgets it at the rate of its window', () => {
    const avg = new BusyAverage(100);
    for (let i = 0; i < 3; i++) avg.start(0).endMs = 1000;
    expect(avg.at(50)).toBeCloseTo(3 * (1 - Math.exp(-0.5)), 10);
    expect(avg.at(1000)).toBeCloseTo(3, 3);
    expect(avg.at(1100)).toBeCloseTo(3 * Math.exp(-1), 3);
  });

  it('counts a hold over its nominal interval, however late its end is known or read', () => {
    const a = new BusyAverage(250);
    a.start(0).endMs = 10;
    const b = new BusyAverage(250);
    const hold = b.start(0);
    expect(b.at(5)).toBeCloseTo(1 - Math.exp(-5 / 250), 12);
    expect(b.at(30)).toBeCloseTo(1 - Math.exp(-30 / 250), 12);
    hold.endMs = 10; // the event loop noticed at 30 ms that the work had ended at 10 ms
    // Read at 60 ms: busy over [0, 10] in both.
    expect(a.at(60)).toBeCloseTo(b.at(60), 12);
    expect(a.at(60)).toBeCloseTo(Math.exp(-50 / 250) - Math.exp(-60 / 250), 12);
  });

  it('moves by about k d / window for a burst of k holds of d ms', () => {
    const avg = new BusyAverage(250);
    for (let i = 0; i < 20; i++) avg.start(0).endMs = 10;
    expect(avg.at(10)).toBeCloseTo(20 * (1 - Math.exp(-10 / 250)), 10);
    expect(avg.at(10)).toBeCloseTo((20 * 10) / 250, 1);
  });

  it('rejects a window that is not a positive number', () => {
    for (const w of [0, -1, Number.NaN, Infinity]) expect(() => new BusyAverage(w)).toThrow(RangeError);
  });
});

describe('progressiveHold', () => {
  const virtualSleep = (late: number) => async (untilMs: number) => untilMs + late;

  it('takes holdMs when the pace is 1 and the wake-ups are on time', async () => {
    expect(await progressiveHold(100, 10, () => 10, virtualSleep(0), 3)).toBeCloseTo(110, 9);
  });

  it('follows the pace as it changes: half the work at pace 1, half at pace 1/3', async () => {
    // heldMs 10 until t = 5, then 30: 5 ms of work done by t = 5, the other 5 take 15 ms.
    expect(await progressiveHold(0, 10, (t) => (t < 5 ? 10 : 30), virtualSleep(0), 5)).toBeCloseTo(20, 9);
  });

  it('ends at the nominal time when the wake-up is late', async () => {
    expect(await progressiveHold(0, 10, () => 20, virtualSleep(7), 100)).toBeCloseTo(20, 9);
  });
});

const MODEL: CoherencyModel = { contentionAlpha: 0, coherencyBeta: 0.1 };
const SLOTS = 16;
const HOLD_MS = 10;

/**
 * The demo's hold logic (orders.ts) in virtual time: completions per second over the last 3 s of
 * 5 s at `ratePerSec`, with the penalty's n the busy count at the grant (windowMs 0) or averaged.
 */
async function simulate(ratePerSec: number, windowMs: number, seed: number): Promise<number> {
  let s = seed;
  const random = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const endMs = 5000;
  const arrivals: number[] = [];
  for (let k = 0; (k * 1000) / ratePerSec < endMs; k++) arrivals.push((k * 1000) / ratePerSec + 20 * random());
  arrivals.sort((a, b) => a - b);
  let nowMs = 0;
  const timers: Array<{ atMs: number; wake: () => void }> = [];
  const sleep = (untilMs: number) =>
    new Promise<number>((resolve) => timers.push({ atMs: Math.max(untilMs, nowMs), wake: () => resolve(nowMs) }));
  const avg = windowMs > 0 ? new BusyAverage(windowMs) : undefined;
  const waiting: Array<(startMs: number) => void> = [];
  let busy = 0;
  let completed = 0;
  const request = async (): Promise<void> => {
    let startMs = nowMs;
    if (busy < SLOTS && waiting.length === 0) busy++;
    else startMs = await new Promise<number>((resolve) => waiting.push(resolve));
    let doneMs: number;
    if (avg) {
      const interval = avg.start(startMs);
      doneMs = await progressiveHold(startMs, HOLD_MS, (t) => heldMs(HOLD_MS, MODEL, avg.at(t)), sleep, windowMs / 10);
      interval.endMs = doneMs;
    } else {
      doneMs = await sleep(startMs + heldMs(HOLD_MS, MODEL, busy));
    }
    if (doneMs > endMs - 3000) completed++;
    const next = waiting.shift();
    if (next) next(doneMs);
    else busy--;
  };
  for (let next = 0; ;) {
    await new Promise((resolve) => setImmediate(resolve));
    let first = 0;
    for (let k = 1; k < timers.length; k++) if (timers[k]!.atMs < timers[first]!.atMs) first = k;
    const timerMs = timers.length ? timers[first]!.atMs : Infinity;
    const arrivalMs = next < arrivals.length ? arrivals[next]! : Infinity;
    if (Math.min(timerMs, arrivalMs) > endMs) break;
    if (arrivalMs < timerMs) {
      nowMs = arrivalMs;
      next++;
      void request();
    } else {
      nowMs = timerMs;
      timers.splice(first, 1)[0]!.wake();
    }
  }
  return completed / 3;
}

const holds = async (rate: number, windowMs: number): Promise<boolean[]> => {
  const out: boolean[] = [];
  for (const seed of [1, 2, 3]) out.push((await simulate(rate, windowMs, seed)) >= 0.9 * rate);
  return out;
};

describe('the open model against the coherency penalty (simulated)', () => {
  const peak = peakOf(HOLD_MS, MODEL, SLOTS).perSec;

  it('with the busy count of the instant, collapses far under the peak', async () => {
    expect(peak).toBeCloseTo(187.5, 6);
    expect(await holds(140, 0)).toEqual([true, true, true]);
    expect(await holds(160, 0)).toEqual([false, false, false]);
  });

  it('with the busy count averaged over 250 ms, holds at 93% of the peak and collapses past it', async () => {
    expect(await holds(175, 250)).toEqual([true, true, true]);
    expect(await holds(250, 250)).toEqual([false, false, false]);
    // Past the peak the queue takes every slot: throughput falls to X(16) = 64 req/s.
    expect(await simulate(250, 250, 1)).toBeLessThan(70);
  });
});
