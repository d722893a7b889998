/**
 * The native engine and an exception nobody caught during its run (unhandled.ts, thrown-by.ts): the
 * scenario's own is counted and the run goes on; one that may be plateau's ends the instance, its
 * done rejecting with it, so the pipeline stops the run as an internal error and still writes the
 * report. Node's listener is called here as Node calls it: emitting the event would reach vitest's too.
 */
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { THROWN } from '../../analysis/scenario-unhandled.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { SimClock } from '../clock.ts';
import { requestArrivals } from '../scenario/arrivals.ts';
import { simPool } from '../../test/helpers/sim-pool.ts';
import { startNative } from './native.ts';
import { SCENARIO_SOURCE } from './thrown-by.ts';
import { addedListener, timerThrew } from '../../test/helpers/uncaught.ts';

describe('an uncaught exception while the native engine runs', () => {
  it("counts the scenario's and goes on; one that may be plateau's ends the instance with it, what came before recorded", async () => {
    const clock = new SimClock(5000);
    const records: BucketRecord[] = [];
    const before = process.listeners('uncaughtException');
    const eng = startNative({
      schedule: new Schedule([{ durationS: 3, fromPerSec: 10, toPerSec: 10 }]),
      phase: 'steps',
      source: 'native/0',
      pool: simPool(clock, 4, () => ({ ms: 10, status: 200 })),
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals: requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null })),
      sink: (r) => records.push(r),
      clock,
    });
    const emit = addedListener('uncaughtException', before);

    await clock.advance(1250);
    emit(timerThrew('boom in a timer', `${SCENARIO_SOURCE}/srv/shop.ts`));
    await clock.advance(500);
    const bug = timerThrew('a bug', new URL('./vu-connection.ts', import.meta.url).href);
    emit(bug);
    await expect(clock.run(eng.done)).rejects.toBe(bug);

    expect(process.listeners('uncaughtException')).toEqual(before);
    const sum = (f: (r: BucketRecord) => number) => records.reduce((a, r) => a + f(r), 0);
    expect(records.filter((r) => r.unhandled).map((r) => [r.tS, r.unhandled])).toEqual([
      [1, { count: 1, first: `${THROWN}boom in a timer` }],
    ]);
    // 10/s for 1.75 s, nothing after the fault: 17 arrivals (0.1, 0.2, ... 1.7 s), every one answered
    expect([sum((r) => r.started), sum((r) => r.completed), sum((r) => r.ok)]).toEqual([17, 17, 17]);
  });
});
