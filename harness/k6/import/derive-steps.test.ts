/**
 * The plan derived from a k6 run's offered arrivals: the JSON and the CSV exports of one run derive
 * the same plan, also with the whole-second timestamps of k6's default CSV timeFormat and a step
 * whose target collapsed, and also when a collapsed step's iterations outlast what the buckets wait for.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../../analysis/types.ts';
import { ingestLines } from '../output/ingest.ts';
import { readLines } from '../output/lines.ts';
import { deriveSteps } from './derive-steps.ts';
import { roundest } from './roundest.ts';

const DIR = 'test/fixtures/k6';

async function* once(lines: string[]) {
  yield lines;
}

async function derive(lines: AsyncIterable<string[]>, lateS = 5) {
  const records: BucketRecord[] = [];
  const r = await ingestLines(lines, { source: 'k6', phase: 'steps', lateS, sink: (x) => records.push(x) });
  return { stats: r.stats, records, derived: deriveSteps(records, r.stats.offeredPerS, r.stats.wholeSeconds === true) };
}

/**
 * The real CSV as k6's default timeFormat (`unix`, or `rfc3339` for an RFC 3339 file) would have
 * written it: each timestamp cut to its whole second, nothing else changed. stepped-queue's CSV is
 * unix_milli (1795971161014 -> 1795971161); stepped-reject's rfc3339_nano
 * (2026-11-29T22:23:38.889239632+05:30 -> 2026-11-29T22:23:38+05:30).
 */
function wholeSeconds(file: string): string[] {
  const lines = zlib
    .gunzipSync(fs.readFileSync(`${DIR}/${file}`))
    .toString('utf8')
    .split('\n');
  return lines.map((l, i) => {
    if (i === 0 || l === '') return l;
    const [metric, time, ...rest] = l.split(',');
    const cut = /^\d+$/.test(time) ? String(Math.floor(Number(time) / 1000)) : time.replace(/\.\d+/, '');
    return [metric, cut, ...rest].join(',');
  });
}

describe('the JSON and the CSV exports of one run derive the same plan', () => {
  it.each([
    // stepped-queue: capacity ~140/s, so the 150, 200 and 250 steps collapsed into drops (1,344 of them)
    [
      'stepped-queue',
      'stepped-queue.ndjson.gz',
      { startPerSec: 50, stepPerSec: 50, maxPerSec: 250, rampS: 2, holdS: 8 },
    ],
    [
      'stepped-reject',
      'stepped-reject.ndjson',
      { startPerSec: 60, stepPerSec: 60, maxPerSec: 180, rampS: 2, holdS: 6 },
    ],
  ])('%s: JSON, CSV as k6 wrote it, and CSV with whole-second timestamps', async (run, json, plan) => {
    const fromJson = await derive(readLines(`${DIR}/${json}`));
    const fromCsv = await derive(readLines(`${DIR}/${run}.csv.gz`));
    const fromWhole = await derive(once(wholeSeconds(`${run}.csv.gz`)));
    expect([fromJson.stats.wholeSeconds, fromCsv.stats.wholeSeconds, fromWhole.stats.wholeSeconds]).toEqual([
      false,
      false,
      true,
    ]);
    expect(fromJson.derived.steps).toEqual(plan);
    expect(fromCsv.derived.steps).toEqual(plan);
    expect(fromWhole.derived.steps).toEqual(plan);
  });

  it('whole seconds: an iteration stamped S that took d began in [S - d, S + 1 - d), shared by the seconds that overlaps; a drop stamped S happened in S', async () => {
    const head =
      'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
    const row = (metric: string, s: number, value: number) =>
      `${metric},${1795971160 + s},${value.toFixed(6)},,,,,,,,,steps,,,,,,,`;
    // t0 at 1795971160 (the first vus point less a second); stamped 3: 5 iterations of 20 ms to
    // 400 ms and 5 drops; stamped 4, an iteration of 1.7 s: it began in [2.3 s, 3.3 s), counted
    // started at its midpoint (2.8 s) and offered 0.7 in second 2, 0.3 in second 3
    const lines = [head, row('vus', 1, 1)];
    for (let k = 0; k < 5; k++) lines.push(row('iteration_duration', 3, 20 + k * 95), row('dropped_iterations', 3, 1));
    lines.push(row('iteration_duration', 4, 1700));
    const { stats, records } = await derive(once(lines));
    expect(stats.wholeSeconds).toBe(true);
    expect(records.map((r) => [r.tS, r.started, r.dropped])).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [2, 1, 0],
      [3, 5, 5],
    ]);
    // second 2: the iterations' shares 0.02 + 0.115 + 0.21 + 0.305 + 0.4 and 0.7; second 3: the rest and the 5 drops
    const [s0, s1, s2, s3] = stats.offeredPerS;
    expect([s0, s1, stats.offeredPerS.length]).toEqual([0, 0, 4]);
    expect(s2).toBeCloseTo(1.05 + 0.7, 9);
    expect(s3).toBeCloseTo(3.95 + 0.3 + 5, 9);
  });
});

describe('a collapsed step whose iterations outlast the buckets', () => {
  /**
   * k6-shaped lines of a ramping-arrival-rate run at 40, 80, 120, 160/s (2 s ramps, 6 s holds):
   * iterations of the first two steps take 20 ms; from the third on the target collapsed and each
   * takes 8 s (their iteration_duration is written 8 s after they started), half of the arrivals
   * dropped. Lines in the order k6 writes them (by the time of writing).
   */
  function collapsedRun(): string[] {
    const T = Date.parse('2026-11-29T16:52:40.000Z');
    const rates = [40, 80, 120, 160];
    const rateAt = (tS: number) => {
      const i = Math.min(rates.length - 1, Math.floor(tS / 8));
      const inStep = tS - i * 8;
      const from = i === 0 ? 0 : rates[i - 1];
      return inStep < 2 ? from + ((rates[i] - from) * inStep) / 2 : rates[i];
    };
    const out: { atMs: number; line: string }[] = [];
    const point = (metric: string, atMs: number, value: number, tags: string) =>
      out.push({
        atMs,
        line: `{"metric":"${metric}","type":"Point","data":{"time":"${new Date(atMs).toISOString()}","value":${value},"tags":${tags}}}`,
      });
    const tags = '{"group":"","scenario":"steps"}';
    let owed = 0;
    for (let tS = 0; tS < 32; tS++) {
      point('vus', T + (tS + 1) * 1000, 10, '{}');
      // arrivals due in [tS, tS + 1): the integral of the rate over the second, carried over
      owed += (rateAt(tS) + rateAt(tS + 1)) / 2;
      const n = Math.floor(owed);
      owed -= n;
      for (let k = 0; k < n; k++) {
        const startMs = T + tS * 1000 + (k * 1000) / n;
        const collapsed = tS >= 16;
        if (collapsed && k % 2 === 1) {
          point('dropped_iterations', startMs, 1, '{"scenario":"steps"}');
          continue;
        }
        const ms = collapsed ? 8000 : 20;
        point(
          'http_reqs',
          startMs + ms - 1,
          1,
          '{"expected_response":"true","group":"","scenario":"steps","status":"200"}',
        );
        point('iteration_duration', startMs + ms, ms, tags);
        point('iterations', startMs + ms, 1, tags);
      }
    }
    return out.sort((a, b) => a.atMs - b.atMs).map((x) => x.line);
  }

  it('the offered arrivals are counted at the second they were due, whatever the buckets did with them', async () => {
    const { stats, records, derived } = await derive(once(collapsedRun()), 2);
    expect(stats.late).toBeGreaterThan(100);
    expect(derived.steps).toEqual({ startPerSec: 40, stepPerSec: 40, maxPerSec: 160, rampS: 2, holdS: 6 });
    // the buckets counted the 8 s iterations' starts in a later second: what they offer is no plan
    expect(deriveSteps(records).steps).toBeNull();
  });
});

describe('holds to a plan', () => {
  const flat = (rate: number, n: number) => Array.from({ length: n }, () => rate);
  const ramp = (from: number, to: number) => [
    Math.round(from + (to - from) / 4),
    Math.round(from + (3 * (to - from)) / 4),
  ];

  it.each([
    [
      'exact',
      [...ramp(0, 80), ...flat(80, 6), ...ramp(80, 160), ...flat(160, 6), ...ramp(160, 240), ...flat(240, 6)],
      { startPerSec: 80, stepPerSec: 80, maxPerSec: 240, rampS: 2, holdS: 6 },
    ],
    [
      'a hold one arrival a second short (239 for 240), seconds one arrival off the rate',
      [
        ...ramp(0, 80),
        ...[81, 80, 79, 80, 80, 81],
        ...ramp(80, 160),
        ...[159, 160, 160, 161, 160, 159],
        ...ramp(160, 240),
        ...flat(239, 6),
        ...ramp(240, 320),
        ...[320, 321, 319, 320, 320, 318],
      ],
      { startPerSec: 80, stepPerSec: 80, maxPerSec: 320, rampS: 2, holdS: 6 },
    ],
  ])('%s', (_name, offered, plan) => {
    expect(deriveSteps([], offered).steps).toEqual(plan);
  });

  it('refuses holds that are not start + i x step, saying which they are', () => {
    const offered = [
      ...ramp(0, 80),
      ...flat(80, 6),
      ...ramp(80, 100),
      ...flat(100, 6),
      ...ramp(100, 300),
      ...flat(300, 6),
    ];
    const d = deriveSteps([], offered);
    expect(d.steps).toBeNull();
    expect(d.steps === null && d.why).toMatch(
      /^the offered rate is not a stepped plan: the closest \(.+\) has holds .+, and step \d's hold/,
    );
  });

  it('a continuous ramp is no stepped plan, however fine its steps would be, and is said to be a ramp', () => {
    const d = deriveSteps(
      [],
      Array.from({ length: 120 }, (_, i) => 5 + 2 * i),
    );
    // it read "the best plan's steps (...) rise by less than a hold's own spread": its closest staircase's
    expect(d).toMatchObject({
      steps: null,
      ramp: { fromPerSec: 5, toPerSec: 245, seconds: 120 },
      why: 'the offered rate rose continuously from 5 to 245/s over 120 s, with no holds: there are no steps to judge',
    });
  });
});

/**
 * A synthetic stepped run of the issue's shape (80, 160, 240, 320 arrivals/s, 4 s ramps, 6 s
 * holds), not a recorded one: arrivals at the plan's times, one server of 180/s that queues, 40
 * VUs, so the third step collapses (its latencies grow for seconds, then arrivals drop). Written as
 * a CSV with millisecond timestamps (unix_milli) and with whole seconds (k6's default unix), the
 * start `phaseS` into its first second.
 */
function collapsingRun(phaseS: number, timeFormat: 'unix' | 'unix_milli'): string[] {
  const t0 = 1795971160 * 1000 + phaseS * 1000;
  const stamp = (ms: number) => String(timeFormat === 'unix' ? Math.floor((t0 + ms) / 1000) : Math.floor(t0 + ms));
  const out: [number, string][] = [];
  const row = (metric: string, ms: number, value: number) =>
    out.push([ms, `${metric},${stamp(ms)},${value.toFixed(6)},,,,,,,,,steps,,,,,,,`]);
  // arrival times: the n-th arrival where the plan's cumulative count reaches n (ramps linear)
  const rates = [80, 160, 240, 320];
  let level = 0;
  let t = 0;
  let due = 0;
  let serverFreeMs = 0;
  const busyUntil: number[] = [];
  for (const to of rates) {
    for (const [d, a, b] of [
      [4, level, to],
      [6, to, to],
    ]) {
      for (let k = 0; k < d * 100; k++) {
        const tau = t + (k + 0.5) / 100;
        due += (a + ((b - a) * (k + 0.5)) / (d * 100)) / 100;
        while (due >= 1) {
          due -= 1;
          const ms = tau * 1000;
          for (let i = busyUntil.length - 1; i >= 0; i--) if (busyUntil[i] <= ms) busyUntil.splice(i, 1);
          if (busyUntil.length >= 40) {
            row('dropped_iterations', ms, 1);
            continue;
          }
          serverFreeMs = Math.max(serverFreeMs, ms) + 1000 / 180;
          busyUntil.push(serverFreeMs);
          row('iteration_duration', serverFreeMs, serverFreeMs - ms);
        }
      }
      t += d;
    }
    level = to;
  }
  for (let s = 1; s <= t + 1; s++) row('vus', s * 1000 + 700, 10);
  out.sort((x, y) => x[0] - y[0]);
  return [
    'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata',
    ...out.map(([, l]) => l),
  ];
}

describe('a stepped run whose third step collapsed, at every phase of its start (synthetic)', () => {
  const plan = { startPerSec: 80, stepPerSec: 80, maxPerSec: 320, rampS: 4, holdS: 6 };
  it.each([0.05, 0.37, 0.6, 0.9])(
    'start %s s into its second: millisecond and whole-second stamps derive the plan',
    async (phaseS) => {
      const milli = await derive(once(collapsingRun(phaseS, 'unix_milli')));
      const whole = await derive(once(collapsingRun(phaseS, 'unix')));
      expect(whole.stats.wholeSeconds).toBe(true);
      expect(whole.records.reduce((a, r) => a + r.dropped, 0)).toBeGreaterThan(0);
      expect(milli.derived.steps).toEqual(plan);
      expect(whole.derived.steps).toEqual(plan);
    },
  );
});

interface StepPlan {
  start: number;
  step: number;
  steps: number;
  ramp: number;
  hold: number;
}

/** Each arrival of a stepped plan (ramps linear), at the time (s) the plan's count reaches it; the plan's length. */
/** A stepped plan as linear segments [seconds, from rate, to rate], then `after` (a ramp down, a peak...). */
function segmentsOf(p: StepPlan, after: [number, number, number][] = []): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let k = 0; k < p.steps; k++) {
    const to = p.start + k * p.step;
    out.push([p.ramp, k === 0 ? 0 : to - p.step, to], [p.hold, to, to]);
  }
  return [...out, ...after];
}

/** Each arrival of a stepped plan (ramps linear), at the time (s) the plan's count reaches it; the plan's length. */
function eachArrival(p: StepPlan, arrive: (tauS: number) => void, after: [number, number, number][] = []): number {
  let t = 0;
  let due = 0;
  for (const [d, a, b] of segmentsOf(p, after)) {
    for (let i = 0; i < d * 100; i++) {
      due += (a + ((b - a) * (i + 0.5)) / (d * 100)) / 100;
      for (; due >= 1; due--) arrive(t + (i + 0.5) / 100);
    }
    t += d;
  }
  return t;
}

/** Arrivals due per second of a stepped plan (and `after`'s segments) that started `shiftS` into second 0. */
function offeredSeries(p: StepPlan, shiftS: number, after: [number, number, number][] = []): number[] {
  const out: number[] = [];
  eachArrival(
    p,
    (tauS) => {
      const s = Math.floor(tauS + shiftS);
      while (out.length <= s) out.push(0);
      out[s]++;
    },
    after,
  );
  return out;
}

describe('a plan of steps of uneven sizes is refused, not judged as fewer even ones (synthetic)', () => {
  /** k6 stages to each level: a 10 s ramp from the level before (0 first), then a 30 s hold. */
  const stages = (levels: number[]): [number, number, number][] =>
    levels.flatMap((r, i): [number, number, number][] => [
      [10, i === 0 ? 0 : levels[i - 1], r],
      [30, r, r],
    ]);
  const offeredOf = (levels: number[]) =>
    offeredSeries({ start: 0, step: 0, steps: 0, ramp: 0, hold: 0 }, 0.3, stages(levels));

  it.each([
    // a user's k6 stages (read as 50 and 180 before), and a doubling plan
    [[20, 50, 100, 180]],
    [[25, 50, 100, 200]],
  ])('%j/s', (levels) => {
    const d = deriveSteps([], offeredOf(levels));
    expect(d.steps).toBeNull();
    expect(d).toMatchObject({
      uneven: true,
      why: expect.stringMatching(
        /^the offered rate is not an evenly stepped plan: .*its ramp to step \d+ \(\d+-\d+ s\) offered \d+\/s at \d+ s where a ramp from \d+ to \d+\/s passes \d+\/s/,
      ),
    });
  });

  it('an even plan of the same shape is derived, its long ramps straight', () => {
    expect(deriveSteps([], offeredOf([40, 80, 120, 160])).steps).toEqual({
      startPerSec: 40,
      stepPerSec: 40,
      maxPerSec: 160,
      rampS: 10,
      holdS: 30,
    });
  });
});

describe('plans of other shapes, the offered series exact (synthetic)', () => {
  const offered = (p: StepPlan, shiftS: number) => offeredSeries(p, shiftS);
  it.each([
    // long holds a little off the second: their found edges lay 1.25 s from the plan's
    [{ start: 50, step: 50, steps: 6, ramp: 5, hold: 30 }, 0.3],
    // gentle ramps: a few seconds of each lie within a hold's tolerance of each other (refused before 12-05)
    [{ start: 10, step: 10, steps: 5, ramp: 10, hold: 20 }, 0.3],
    [{ start: 100, step: 50, steps: 5, ramp: 30, hold: 60 }, 0.6],
    // no ramp: a step straight to the next rate, not a 1 s ramp and a hold a second short
    [{ start: 200, step: 100, steps: 5, ramp: 0, hold: 60 }, 0.1],
    [{ start: 10, step: 10, steps: 3, ramp: 0, hold: 30 }, 0.85],
  ])('%j starting %s s in', (p, shiftS) => {
    expect(deriveSteps([], offered(p, shiftS)).steps).toEqual({
      startPerSec: p.start,
      stepPerSec: p.step,
      maxPerSec: p.start + (p.steps - 1) * p.step,
      rampS: p.ramp,
      holdS: p.hold,
    });
  });
  const plan = { start: 100, step: 100, steps: 4, ramp: 2, hold: 10 };
  const derived = { startPerSec: 100, stepPerSec: 100, maxPerSec: 400, rampS: 2, holdS: 10 };
  it('a run cut mid-hold keeps the step it was in (6 s into the last hold; 2 s in is too few to judge)', () => {
    expect(deriveSteps([], offered(plan, 0.5).slice(0, 44)).steps).toEqual(derived);
    expect(deriveSteps([], offered(plan, 0.5).slice(0, 40)).steps).toEqual({ ...derived, maxPerSec: 300 });
  });
  it('a ramp down after the last hold (k6 stages ending at 0) is no step, however long', () => {
    const p = { ...plan, ramp: 5, hold: 20 };
    for (const downS of [10, 30, 60]) {
      const down = Array.from({ length: downS }, (_, i) => Math.round(400 * (1 - (i + 0.5) / downS)));
      const d = deriveSteps([], [...offered(p, 0.3).slice(0, -1), ...down]);
      expect(d.steps).toEqual({ ...derived, rampS: 5, holdS: 20 });
      expect(d.steps && d.after.seconds).toBeGreaterThan(downS - 3);
    }
  });
  it('load that begins at once 2 s or more after t0 is refused with the fix; a slow first ramp is not', () => {
    const late = [0, 0, 0, 0, 0, ...offered(plan, 0.5)];
    expect(deriveSteps([], late)).toMatchObject({
      steps: null,
      why: expect.stringMatching(/^the first arrivals came 5 s after t0 .*: pass --t0 at the load's start$/),
    });
    const slow = { start: 2, step: 2, steps: 4, ramp: 30, hold: 30 };
    expect(deriveSteps([], offered(slow, 0.3)).steps).toEqual({
      startPerSec: 2,
      stepPerSec: 2,
      maxPerSec: 8,
      rampS: 30,
      holdS: 30,
    });
  });
});

describe('a continuous ramp, said to be one; stepped plans and other shapes are not (synthetic, exact)', () => {
  const none = { start: 0, step: 0, steps: 0, ramp: 0, hold: 0 };
  const ramp = (segments: [number, number, number][], shiftS: number) => offeredSeries(none, shiftS, segments);
  it.each([
    // the reviewer's (gen-ramp50, gen-ramp): one 60 s stage, no hold; they listed the closest
    // staircase's 3 s "holds", and the flags that fix named were refused with "drop the step flags"
    [[[60, 50, 350]], 0, 'from 50 to 350/s over 60 s'],
    [[[60, 0, 300]], 0.5, 'from 0 to 300/s over 60 s'],
    [[[120, 200, 1000]], 0.3, 'from 200 to 1000/s over 120 s'],
    [[[100, 100, 150]], 0.2, 'from 100 to 150/s over 100 s'],
    // k6 stages ramping down after: the top is where it fell from
    [
      [
        [60, 0, 300],
        [30, 300, 0],
      ],
      0.45,
      'from 0 to 300/s over 60 s',
    ],
  ] as [[number, number, number][], number, string][])('%j starting %s s in', (segments, shiftS, said) => {
    const d = deriveSteps([], ramp(segments, shiftS));
    expect(d).toMatchObject({
      steps: null,
      why: `the offered rate rose continuously ${said}, with no holds: there are no steps to judge`,
    });
  });
  it('a ramp then a hold is one rate held; ramps of two slopes are a ramp of two pieces (ramp-slopes.ts); uneven or small steps are no ramp', () => {
    expect(deriveSteps([], ramp([[40, 20, 220]], 0.2))).toMatchObject({
      steps: null,
      ramp: { fromPerSec: 20, toPerSec: 220, seconds: 40 },
    });
    expect(
      deriveSteps(
        [],
        ramp(
          [
            [30, 0, 300],
            [30, 300, 300],
          ],
          0.3,
        ),
      ),
    ).toMatchObject({ steps: null, flat: true });
    const twoSlopes = deriveSteps(
      [],
      ramp(
        [
          [20, 0, 100],
          [20, 100, 400],
        ],
        0.3,
      ),
    );
    expect(twoSlopes.steps === null && twoSlopes.ramp).toMatchObject({
      fromPerSec: 0,
      toPerSec: 400,
      pieces: [{ toPerSec: 100 }, { toPerSec: 400 }],
    });
    const uneven = deriveSteps(
      [],
      offeredSeries(none, 0.3, [
        [0, 0, 100],
        [3, 100, 100],
        [0, 100, 130],
        [3, 130, 130],
        [0, 130, 170],
        [3, 170, 170],
        [0, 170, 220],
        [3, 220, 220],
        [0, 220, 280],
        [3, 280, 280],
      ]),
    );
    expect(uneven.steps === null && uneven.ramp).toBeUndefined();
    // steps of 4/s at 100 to 120/s, 5 s holds: close to a line, still a stepped plan at millisecond stamps
    expect(deriveSteps([], offeredSeries({ start: 100, step: 4, steps: 6, ramp: 0, hold: 5 }, 0.1)).steps).toEqual({
      startPerSec: 100,
      stepPerSec: 4,
      maxPerSec: 120,
      rampS: 0,
      holdS: 5,
    });
  });
});

describe('whole-second timestamps of iterations of random durations (synthetic, through the ingest)', () => {
  /** A stepped plan's iterations, each of 5 to 205 ms (seeded), stamped by k6's default whole seconds. */
  /** lateS: the first arrival that much after the first vus point (k6 initialising its VUs). */
  function wholeSecondRun(
    p: StepPlan,
    phaseS: number,
    cutS = Infinity,
    after: [number, number, number][] = [],
    lateS = 0,
  ) {
    const t0 = 1795971160 * 1000 + phaseS * 1000;
    const out: [number, string][] = [];
    const row = (metric: string, ms: number, value: number) =>
      out.push([ms, `${metric},${Math.floor((t0 + ms) / 1000)},${value.toFixed(6)},,,,,,,,,steps,,,,,,,`]);
    let seed = 4242;
    const t = eachArrival(
      p,
      (tauS) => {
        if (tauS >= cutS) return;
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const dur = 5 + (seed / 2147483648) * 200;
        row('iteration_duration', (tauS + lateS) * 1000 + dur, dur);
      },
      after,
    );
    for (let s = 1; s <= Math.min(t, cutS) + lateS + 1; s++) row('vus', s * 1000 + 700, 10);
    out.sort((x, y) => x[0] - y[0]);
    return [
      'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata',
      ...out.map(([, l]) => l),
    ];
  }
  // a hold's seconds spread by about sqrt(rate / 12): 93 to 107 at 100/s, which split the holds found
  // by their flat seconds before 12-05 (these were refused)
  it.each([
    [{ start: 50, step: 50, steps: 5, ramp: 5, hold: 30 }, 0.37],
    [{ start: 100, step: 20, steps: 5, ramp: 10, hold: 30 }, 0.6],
    [{ start: 200, step: 100, steps: 4, ramp: 0, hold: 20 }, 0.9],
  ])('%j starting %s s in', async (p, phaseS) => {
    const whole = await derive(once(wholeSecondRun(p, phaseS)));
    expect(whole.stats.wholeSeconds).toBe(true);
    expect(whole.derived.steps).toEqual({
      startPerSec: p.start,
      stepPerSec: p.step,
      maxPerSec: p.start + (p.steps - 1) * p.step,
      rampS: p.ramp,
      holdS: p.hold,
    });
  });
  it('short holds (6 s) at whole seconds: their noise is not taken for a trend', async () => {
    const p = { start: 100, step: 100, steps: 4, ramp: 2, hold: 6 };
    for (const phaseS of [0.1, 0.45, 0.8]) {
      expect((await derive(once(wholeSecondRun(p, phaseS)))).derived.steps).toEqual({
        startPerSec: 100,
        stepPerSec: 100,
        maxPerSec: 400,
        rampS: 2,
        holdS: 6,
      });
    }
  });
  it('load starting 2.5 s after the first vus point (k6 initialising its VUs): its ramps are not read longer', async () => {
    const p = { start: 100, step: 50, steps: 5, ramp: 5, hold: 20 };
    for (const phaseS of [0.2, 0.7]) {
      const { derived } = await derive(once(wholeSecondRun(p, phaseS, Infinity, [], 2.5)));
      expect(derived.steps).toEqual({ startPerSec: 100, stepPerSec: 50, maxPerSec: 300, rampS: 5, holdS: 20 });
    }
  });
  it('a run stopped 5 s into its last hold: that short hold counts little in the rates', async () => {
    const p = { start: 600, step: 60, steps: 3, ramp: 2, hold: 20 };
    for (const phaseS of [0.2, 0.7]) {
      const { derived } = await derive(once(wholeSecondRun(p, phaseS, 2 * 22 + 2 + 5)));
      expect(derived.steps).toEqual({ startPerSec: 600, stepPerSec: 60, maxPerSec: 720, rampS: 2, holdS: 20 });
    }
  });
  it('a last ramp that peaks with no hold, then falls, is no step (a review found it counted at whole seconds)', async () => {
    const p = { start: 100, step: 100, steps: 4, ramp: 10, hold: 30 };
    const peak: [number, number, number][] = [
      [10, 400, 500],
      [180, 500, 0],
    ];
    for (const phaseS of [0.15, 0.55, 0.85]) {
      const { derived } = await derive(once(wholeSecondRun(p, phaseS, Infinity, peak)));
      expect(derived.steps).toEqual({ startPerSec: 100, stepPerSec: 100, maxPerSec: 400, rampS: 10, holdS: 30 });
    }
  });
  it("a continuous ramp at whole seconds is said to be one: the reviewer's 50 to 350/s was judged as steps of 3 s holds (55 + i x 15/s) where k6's first vus point came a second into the run; stepped plans close to a line still derive", async () => {
    const none = { start: 0, step: 0, steps: 0, ramp: 0, hold: 0 };
    for (const phaseS of [0.15, 0.45, 0.8]) {
      // 0.65 s late: the load starts 1.05 s before the first vus point (at 1.7 s here), as k6's ticker writes it
      const { derived } = await derive(once(wholeSecondRun(none, phaseS, Infinity, [[60, 50, 350]], 0.65)));
      expect(derived.steps).toBeNull();
      expect(derived.steps === null && derived.ramp).toEqual({ fromPerSec: 50, toPerSec: 350, seconds: 60 });
    }
    // steps close to a line (no ramps, 5 s holds; at 900 to 1100/s each a 1.7 tolerances rise): still steps
    for (const [p, phaseS] of [
      [{ start: 900, step: 50, steps: 5, ramp: 0, hold: 5 }, 0.8],
      [{ start: 30, step: 30, steps: 10, ramp: 0, hold: 5 }, 0.3],
    ] as [StepPlan, number][]) {
      const { derived } = await derive(once(wholeSecondRun(p, phaseS, Infinity, [], 0.65)));
      expect(derived.steps).toEqual({
        startPerSec: p.start,
        stepPerSec: p.step,
        maxPerSec: p.start + (p.steps - 1) * p.step,
        rampS: p.ramp,
        holdS: p.hold,
      });
    }
  });
  it('a flat run is no stepped plan, and is said to have held one rate (it read "rates do not rise from a start above 0")', () => {
    const flat = Array.from({ length: 62 }, (_, i) => (i < 2 ? 100 * (i + 1) : 200));
    expect(deriveSteps([], flat)).toEqual({
      steps: null,
      flat: true,
      why: 'the run held one rate only, about 200/s from 1 to 61 s: there are no steps to judge',
    });
    // a constant-arrival-rate (no ramp), its seconds as blurred as whole-second stamps make them
    const blurred = Array.from({ length: 30 }, (_, i) => 50 + [3, -2, 1, -3, 2][i % 5]);
    expect(deriveSteps([], blurred, true)).toMatchObject({ steps: null, flat: true });
    // the reviewer's flat.ndjson: one 50/s stage of 8 s after a 2 s ramp
    expect(deriveSteps([], [12, 37, 50, 50, 50, 50, 50, 50, 50, 50, 15])).toMatchObject({
      why: 'the run held one rate only, about 50/s from 2 to 10 s: there are no steps to judge',
    });
  });
  it('rates are rounded to the roundest whole number their uncertainty allows', () => {
    expect(roundest(999.3, 1.7)).toBe(1000);
    expect(roundest(999.3, 0.2)).toBe(999);
    expect(roundest(148.6, 2)).toBe(150);
    expect(roundest(81.2, 0.9)).toBe(81);
    expect(roundest(81.2, 1.3)).toBe(80);
  });
});
