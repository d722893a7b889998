import { describe, expect, it } from 'vitest';
import { SimClock } from './clock.ts';
import { Interrupt } from './pipeline/interrupt.ts';
import { DurationCap } from './limits.ts';

/** A cap of `maxS` on a simulated clock; `at(ms)` moves the clock there, firing what is due. */
function capOf(maxS: number) {
  const clock = new SimClock();
  const interrupt = new Interrupt();
  const cap = new DurationCap(maxS, interrupt, () => undefined, clock);
  const at = (ms: number) => clock.run(new Promise<void>((r) => clock.setTimeout(r, ms - clock.now())));
  return { clock, interrupt, cap, at };
}

describe('DurationCap: limits.maxDurationS counts the seconds load runs', () => {
  it('a warmup and steps that fill the cap exactly, with time between them and a drain after each: never stopped', async () => {
    const { interrupt, cap, at } = capOf(30);
    await at(500); // RTT, the engine's start, connecting: no load
    cap.start(500, 9_500); // the warmup's whole 9 s schedule
    await at(9_540); // its drain past the schedule does not count
    cap.end();
    await at(9_700); // the threads stage, connecting again
    cap.start(9_700, 30_700); // the steps' 21 s
    await at(30_900); // the last window closing, judged
    cap.end();
    expect(interrupt.interrupted).toBe(false);
    expect(cap.reached).toBe(false);
  });

  it("fractions of a ms on performance.now()'s scale do not make a phase that fits look over the cap", async () => {
    const { interrupt, cap, at } = capOf(30);
    // the clock read twice for a warmup's start and end: 9000.000882 ms of schedule
    cap.start(4_969.750849, 13_969.751731);
    await at(14_000);
    cap.end();
    cap.start(14_077.365269, 35_077.365269);
    await at(35_200);
    cap.end();
    expect(interrupt.interrupted).toBe(false);
  });

  it('a rerun past the cap is stopped when the load reaches it, the gap before it not counted', async () => {
    const { interrupt, cap, at } = capOf(15);
    cap.start(0, 11_000);
    await at(11_200); // the failed step judged: the leg stopped
    cap.end();
    cap.start(13_000, 24_000); // the rerun leg starts on a whole second
    await at(16_999);
    expect(interrupt.interrupted).toBe(false);
    await at(17_000); // 11 s + 4 s of load
    expect(interrupt.interrupted).toBe(true);
    expect(cap.reached).toBe(true);
  });

  it('a leg that starts with the cap spent is stopped before it offers anything', async () => {
    const { interrupt, cap, at } = capOf(10);
    cap.start(0, 10_000);
    await at(10_500);
    // ended past its schedule: only the schedule's 10 s count
    cap.end();
    expect(interrupt.interrupted).toBe(false);
    cap.start(12_000, 20_000);
    expect(interrupt.interrupted).toBe(true);
  });

  it('a Ctrl-C first: the cap stops nothing and says nothing', async () => {
    const { interrupt, cap, at } = capOf(5);
    cap.start(0, 10_000);
    interrupt.trigger();
    await at(6_000);
    expect(cap.reached).toBe(false);
  });
});
