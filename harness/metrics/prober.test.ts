/**
 * The prober's readingAt in simulated time: it settles when the reading of that second is taken or
 * fails, at once for a second already read or not due, after its wait at most when a reading
 * hangs, and at stop.
 */
import { describe, expect, it } from 'vitest';
import { SimClock } from '../clock.ts';
import { parseConfigOrThrow } from '../config/validate.ts';
import { emptySample } from '../../analysis/testing/builders.ts';
import { Prober } from './prober.ts';

/** A reading of one request (a sample's figures without where and when it was taken). */
const { kind: _kind, phase: _phase, tS: _tS, ...READING } = emptySample(0, { requestsCount: 1, requestsSumS: 0.01 });

/** A prober reading every 2 s, and at second 3 (an edge), whose readings take `readMs` (or fail). */
function prober(readMs: number, o: { fail?: boolean } = {}) {
  const clock = new SimClock();
  const config = parseConfigOrThrow({
    target: { url: 'http://model.test/' },
    steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 20, rampS: 1, holdS: 3 },
    metrics: { url: '/metrics', scrapeEveryS: 2 },
  });
  const p = new Prober({
    config,
    phase: 'steps',
    t0Ms: 0,
    isEdge: (tS) => tS === 3,
    sink: () => undefined,
    clock,
    read: () =>
      new Promise((resolve, reject) =>
        clock.setTimeout(() => (o.fail ? reject(new Error('refused')) : resolve(READING)), readMs),
      ),
  });
  return { clock, p };
}

/** When (simulated ms) readingAt(tS, waitMs) settles, asked at `askAtMs`. */
async function settlesAt(readMs: number, tS: number, waitMs: number, askAtMs: number, o: { fail?: boolean } = {}) {
  const { clock, p } = prober(readMs, o);
  p.start();
  await clock.advance(askAtMs);
  const at = await clock.run(p.readingAt(tS, waitMs).then(() => clock.now()));
  await clock.run(p.stop());
  return { at, samples: p.samples.map((s) => s.tS) };
}

describe('Prober.readingAt', () => {
  it('settles when the reading of that second is in, with the sample stored', async () => {
    const { at, samples } = await settlesAt(300, 3, 1000, 2500);
    expect(at).toBe(3300);
    expect(samples).toContain(3.15);
  });

  it('settles when the reading fails, as when it succeeds', async () => {
    const { at, samples } = await settlesAt(300, 3, 1000, 2500, { fail: true });
    expect(at).toBe(3300);
    expect(samples).toEqual([]);
  });

  it('stores with each reading the time it took, its tS the midpoint', async () => {
    const { clock, p } = prober(300);
    p.start();
    await clock.advance(3500);
    await clock.run(p.stop());
    expect(p.samples.map((s) => [s.tS, s.readMs])).toEqual([
      [2.15, 300],
      [3.15, 300],
    ]);
  });

  it('settles at once for a second already read', async () => {
    const { at } = await settlesAt(100, 2, 1000, 2500);
    expect(at).toBe(2500);
  });

  it('settles when a second with no reading due has passed (5 is neither an edge nor a multiple of 2)', async () => {
    const { at, samples } = await settlesAt(100, 5, 5000, 4500);
    expect(at).toBe(5000);
    expect(samples).toEqual([2.05, 3.05, 4.05]);
  });

  it('waits waitMs at most for a reading that hangs', async () => {
    const { at } = await settlesAt(4000, 3, 1000, 2500);
    expect(at).toBe(3500);
  });

  it('settles at stop', async () => {
    const { clock, p } = prober(100);
    p.start();
    await clock.advance(2500);
    let settled = false;
    const waiting = p.readingAt(9, 60_000).then(() => (settled = true));
    await clock.run(p.stop());
    await waiting;
    expect(settled).toBe(true);
    expect(clock.now()).toBeLessThan(3000);
  });
});
