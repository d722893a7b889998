import { describe, expect, it } from 'vitest';
import { runWarnings as warningValues } from './warnings.ts';
import type { Rules, StageOutcome, StepResult } from './types.ts';
import { warningTexts } from '../reports/warning-text.ts';
import { stepList } from './format.ts';
import { stepResult } from './testing/builders.ts';

const rules = { minTailSamples: 10 } as Rules;

const step = stepResult;

/** The run's warnings as the reports word them (the values come from analysis/warnings.ts). */
function runWarnings(steps: StepResult[], r: Rules, stages: StageOutcome[] = []): string[] {
  return warningTexts({ steps, warnings: warningValues(steps, r, stages) });
}

describe('generator warnings', () => {
  it('late arrivals on a busy generator: short of CPU', () => {
    const [w] = runWarnings([step({ lagP99Ms: 15, generatorBusy: 0.75 })], rules);
    expect(w).toMatch(
      /^step 1 started arrivals late: scheduler lag p99 15\.0 ms > 10 ms; the generator is short of CPU/,
    );
  });

  it('never reads "X > X": a figure just over its bound keeps the decimals that show it', () => {
    const w = runWarnings([step({ lagP99Ms: 10.04, loopDelayMaxMs: 50.3, generatorBusy: 0.804 })], rules).join('\n');
    expect(w).toMatch(/scheduler lag p99 10\.04 ms > 10 ms/);
    expect(w).toMatch(/event-loop delay up to 50\.3 ms > 50 ms/);
    expect(w).toMatch(/busy 80\.4% of the steady window \(> 80%\)/);
  });

  it('late arrivals on a mostly idle generator: stalls from outside, a machine of its own helps', () => {
    const ws = runWarnings([step({ lagP99Ms: 25, loopDelayMaxMs: 80, generatorBusy: 0.5 })], rules);
    expect(ws).toHaveLength(2);
    expect(ws[0]).toMatch(
      /its busiest thread was busy only 50% of the time: the delays are stalls .*; a load machine of its own helps most$/,
    );
    expect(ws[1]).toMatch(
      /event-loop delay up to 80\.0 ms > 50 ms: .*; its threads were mostly idle \(busiest 50%\): stalls, not a generator short of CPU; run it on a machine of its own$/,
    );
  });

  it("drops: the generator's, unless the step failed at the target, whose latency held every VU", () => {
    expect(runWarnings([step({ dropped: 52 })], rules)).toEqual([
      'step 1 dropped 52 arrivals: no free VU; raise maxVUs or this step measures the generator',
    ]);
    // a saturated generator's VUs were held by its own queue: more VUs would only add to it
    expect(runWarnings([step({ dropped: 52, generatorSaturated: true })], rules)).toEqual([
      'step 1 dropped 52 arrivals: no free VU, while the generator was saturated (its busiest thread or its process over its busy bound), so its own queue held the VUs and more would only add to it: this step measures the generator; give it more cores or workers (--workers) or a machine of its own',
    ]);
    const target = {
      dropped: 1_520,
      verdict: 'fails' as const,
      waitedOnTarget: true,
      vusAllocatedMax: 408,
      vusActiveMax: 408,
      completedPerSec: 400,
      meanMs: 919,
    };
    expect(runWarnings([step(target)], rules)).toEqual([
      "step 1 dropped 1,520 arrivals: no free VU, all 408 VUs waiting on the target (Little's law: 400.0 req/s x 919 ms mean = 368 requests in flight on average): the drops follow from the target's limit, and more VUs would only queue more requests at it",
    ]);
    // a mix: the mean is its requests', so is the rate (a transaction's requests each hold a VU)
    expect(runWarnings([step({ ...target, requestsPerSec: 640 })], rules)[0]).toMatch(
      /\(Little's law: 640\.0 requests\/s x 919 ms mean = 588 requests in flight on average\)/,
    );
    expect(runWarnings([step({ ...target, meanMs: null })], rules)[0]).toMatch(
      /all 408 VUs waiting on the target: the drops follow/,
    );
    // the pool grew within the second: its busiest moment, not the count at the step's end
    expect(runWarnings([step({ ...target, meanMs: null, vusActiveMax: 403 })], rules)[0]).toMatch(
      /no free VU, its VUs \(up to 403 busy at once, of 408 allocated by the step's end\) waiting on the target: the drops follow/,
    );
  });

  it('drops refused on a saturated thread over TLS: more cores, not more VUs; the rest still ask for VUs', () => {
    expect(runWarnings([step({ dropped: 52, droppedBusy: 52 })], rules)).toEqual([
      "step 1 dropped 52 arrivals: no free VU, all while the generator's thread was saturated (over 80% busy), when a VU pool over TLS opens no new connection (each costs a handshake, about 2 ms of CPU, which would only stall the thread further): this step measures the generator; give it more cores or workers (--workers) or a machine of its own",
    ]);
    expect(runWarnings([step({ dropped: 1_052, droppedBusy: 1_000 })], rules)[0]).toMatch(
      /^step 1 dropped 1,052 arrivals: no free VU, 1,000 while the generator's thread was saturated .*; the other 52 found the pool at its maximum: raise maxVUs$/,
    );
    // A step that failed at the target keeps the target's reading; the refused ones are named.
    const target = {
      dropped: 1_520,
      droppedBusy: 20,
      verdict: 'fails' as const,
      waitedOnTarget: true,
      vusAllocatedMax: 408,
      completedPerSec: 400,
      meanMs: 919,
    };
    expect(runWarnings([step(target)], rules)[0]).toMatch(
      /: the drops follow from the target's limit \(20 of them refused a new VU while the generator's thread was saturated\), and more VUs/,
    );
  });

  it("a generator throttled by its container's CPU quota for 0.5% of the window or more says so", () => {
    expect(runWarnings([step({ steadyS: 10, throttledMs: 1_240 })], rules)).toEqual([
      "step 1: the generator's container was throttled by its CPU quota, 1,240 ms in all (summed over its CPUs) in the 10 s steady window: its threads were stopped until the next quota period (usually 100 ms) each time, so arrivals started late and latencies include the pauses; raise the container's CPU limit (run.json: environment.cpuQuota) or run the generator with whole cores of its own",
    ]);
    expect(runWarnings([step({ steadyS: 10, throttledMs: 49 }), step({ throttledMs: null }), step({})], rules)).toEqual(
      [],
    );
  });

  it("CPU steal from 5% of the machine's time: the hypervisor's, whatever the generator's own load", () => {
    expect(runWarnings([step({ cpuSteal: 0.064 })], rules)).toEqual([
      "step 1: the hypervisor gave 6% of the machine's CPU time elsewhere during the steady window (CPU steal): the generator's threads (and a target on this machine) stalled while ready to run, whatever their own load; on a burstable instance out of CPU credit or a crowded host the figures move with the neighbours: use a machine with dedicated CPUs",
    ]);
    expect(runWarnings([step({ cpuSteal: 0.049 }), step({ cpuSteal: null }), step({})], rules)).toEqual([]);
    // the machine's figure: one line for the steps it reached (a rerun of step 3 among them)
    const steps = [0.1, 0.02, 0.19, 0.13].map((cpuSteal, i) => step({ cpuSteal, index: Math.min(i, 2) }));
    expect(runWarnings(steps, rules)).toEqual([
      expect.stringMatching(
        /^steps 1 and 3: the hypervisor gave 10% to 19% of the machine's CPU time elsewhere during their steady windows \(CPU steal\)/,
      ),
    ]);
  });

  it('a generator thread busy over 80% of the window is close to its limit, even on schedule', () => {
    expect(runWarnings([step({ generatorBusy: 0.86 })], rules)).toEqual([
      "step 1: the generator's busiest thread was busy 86% of the steady window (> 80%): little headroom, so a higher rate may measure the generator; give it more cores or workers (--workers)",
    ]);
    expect(runWarnings([step({ generatorBusy: 0.8 }), step({ generatorBusy: null })], rules)).toEqual([]);
  });

  it("a generator process using over 80% of its CPUs is close to its limit (k6's); said once beside a busy thread", () => {
    expect(runWarnings([step({ generatorBusy: null, generatorCpu: 0.83 })], rules)).toEqual([
      "step 1: the generator's process used 83% of the CPUs it may use in the steady window (> 80%): little headroom, so a higher rate may measure the generator; give it more cores, or a machine of its own",
    ]);
    expect(runWarnings([step({ generatorBusy: 0.86, generatorCpu: 0.83 })], rules)).toHaveLength(1);
    expect(runWarnings([step({ generatorCpu: 0.8 })], rules)).toEqual([]);
  });
});

describe("a rerun's warnings", () => {
  // every warning about one step, once for its first attempt and once for its rerun at the same rate
  it.each<[string, Partial<StepResult>]>([
    ['window-short', { steadyS: 3 }],
    ['dropped', { dropped: 52 }],
    ["dropped (the target's)", { dropped: 52, verdict: 'fails', waitedOnTarget: true }],
    ['late-start', { lagP99Ms: 25 }],
    ['loop-delay', { loopDelayMaxMs: 80 }],
    ['thread-busy', { generatorBusy: 0.86 }],
    ['process-cpu', { generatorCpu: 0.83 }],
    ['throttled', { throttledMs: 1_240 }],
    ['reconnects', { reconnects: 100 }],
    ['refused', { errors: { refused: 300 }, reconnects: 300 }],
    ['over-delivered', { delivery: 1.1, throughputPerSec: 110 }],
  ])("%s: the rerun's names its attempt, the first attempt's reads as before", (_code, over) => {
    const [first, second, ...rest] = runWarnings(
      [step({ index: 5, ...over }), step({ index: 5, attempt: 2, ...over })],
      rules,
    );
    expect(rest).toEqual([]);
    expect(first).toMatch(/^step 6[ :](?!\(attempt)/);
    expect(second).toMatch(/^step 6 \(attempt 2\)[ :]/);
    expect(second!.replace(' (attempt 2)', '')).toBe(first);
  });
});

describe('reconnects', () => {
  it("a step where 1 request in 100 reconnected (Tomcat's keep-alive limit) says connect time is outside the percentiles", () => {
    expect(runWarnings([step({ completed: 240_000, reconnects: 2_400 })], rules)).toEqual([
      "step 1: 1.0% of its requests (2,400 of 240,000) had to open their VU's connection again, and connect time (with the TLS handshake, over https) is not in the latency percentiles (nor in k6's http_req_duration): the target closed kept-alive connections in use (Connection: close, a keep-alive request limit such as Tomcat's default of 100) or reset them; if real clients keep theirs open longer, raise that limit",
    ]);
    expect(runWarnings([step({ completed: 500, reconnects: 500 })], rules)[0]).toMatch(
      /^step 1: 100% of its requests \(500 of 500\) had to open/,
    );
    // a mix: of its requests, not its arrivals (220 of 200 arrivals read 110%)
    expect(runWarnings([step({ completed: 200, steadyS: 5, requestsPerSec: 44, reconnects: 220 })], rules)[0]).toMatch(
      /^step 1: 100% of its requests \(220 of 220\) had to open/,
    );
  });

  it('a share short of all of them never reads 100% (958 of 961 is 99.7%)', () => {
    expect(runWarnings([step({ completed: 961, reconnects: 958 })], rules)[0]).toMatch(
      /^step 1: 99\.7% of its requests \(958 of 961\) had to open/,
    );
  });

  // run b2 of an audit: every request of step 6 timed out at the client's 400 ms, and the warning
  // sent the reader to the target's keep-alive limit
  const timedOut = { completed: 961, failed: 961, ok: 0, errors: { timeout: 961 }, reconnects: 958 };

  it("reconnects the client's own timeouts account for are said as theirs, never as the target's closes", () => {
    const texts = warningTexts({ steps: [step(timedOut)], warnings: warningValues([step(timedOut)], rules, [], 400) });
    expect(texts).toEqual([
      "step 1: 99.7% of its requests (958 of 961) had to open their VU's connection again, and connect time (with the TLS handshake, over https) is not in the latency percentiles (nor in k6's http_req_duration): they follow the client's own timeouts, not the target's closes: 961 of its requests exceeded the client's deadline (http.timeoutMs, 400 ms), and plateau closes the connection of a request it gives up on, so that VU's next request connects again; the timeouts are the step's failures (see the errors table): the target did not answer in time at this rate, and if real clients wait longer, raise http.timeoutMs",
    ]);
    expect(texts[0]).not.toMatch(/keep-alive|Tomcat|raise that limit/);
    // the deadline unknown (a run stored without it): the setting is still named
    expect(runWarnings([step(timedOut)], rules)[0]).toMatch(/exceeded the client's deadline \(http\.timeoutMs\), and/);
  });

  it("a mix counts its requests' timeouts (its names), not its arrivals'", () => {
    const name = (timeout: number, transaction = false) => ({
      ...(transaction ? { transaction: true as const } : {}),
      completedPerSec: 0,
      throughputPerSec: 0,
      completed: 500,
      ok: 500 - timeout,
      failed: timeout,
      errorRate: timeout / 500,
      errors: { timeout },
      latency: [],
      meanMs: null,
      maxMs: null,
    });
    // 400 requests of 400 arrivals timed out, through a transaction of two requests counted once
    const s = step({
      completed: 1_000,
      steadyS: 5,
      requestsPerSec: 300,
      reconnects: 1_400,
      errors: { timeout: 400 },
      byName: { read: name(300), create: name(300), order: name(400, true) },
    });
    expect(runWarnings([s], rules)[0]).toMatch(
      /: up to 600 of them after the client's own timeouts \(http\.timeoutMs: .*\); for the other 800 or more, the target closed kept-alive connections in use/,
    );
  });

  it("reconnects beyond what the timeouts account for are still the target's", () => {
    const s = step({ ...timedOut, completed: 10_000, errors: { timeout: 300 }, reconnects: 1_000 });
    expect(warningTexts({ steps: [s], warnings: warningValues([s], rules, [], 400) })).toEqual([
      "step 1: 10% of its requests (1,000 of 10,000) had to open their VU's connection again, and connect time (with the TLS handshake, over https) is not in the latency percentiles (nor in k6's http_req_duration): up to 300 of them after the client's own timeouts (http.timeoutMs, 400 ms: plateau closes the connection of a request it gives up on, so that VU's next request connects again); for the other 700 or more, the target closed kept-alive connections in use (Connection: close, a keep-alive request limit such as Tomcat's default of 100) or reset them; if real clients keep theirs open longer, raise that limit",
    ]);
    // a remainder under 1 in 1,000 of the requests is within what the timeouts explain
    expect(runWarnings([{ ...s, errors: { timeout: 995 } }], rules)[0]).toMatch(
      /: they follow the client's own timeouts/,
    );
  });

  it('below 1 in 1,000, or not counted (k6, older runs), says nothing', () => {
    expect(
      runWarnings(
        [
          step({ completed: 240_000, reconnects: 239 }),
          step({ reconnects: null }),
          step({ completed: 0, reconnects: 0 }),
        ],
        rules,
      ),
    ).toEqual([]);
  });
});

describe('thin percentiles', () => {
  const thin = (index: number, n: number, verdict: 'holds' | 'fails' = 'holds') =>
    step({
      index,
      verdict,
      latency: [
        { q: 50, valueMs: 10, n, reliable: true },
        { q: 99, valueMs: 14, n, reliable: false },
        { q: 99.9, valueMs: 20, n, reliable: false },
      ],
    });

  it('one line per percentile names every holding step it concerns, after the step warnings', () => {
    const ws = runWarnings(
      [
        thin(0, 250),
        thin(1, 500),
        thin(2, 750),
        thin(3, 1_000, 'fails'),
        thin(4, 1_250),
        step({ index: 5, dropped: 3 }),
      ],
      rules,
    );
    expect(ws).toEqual([
      'step 6 dropped 3 arrivals: no free VU; raise maxVUs or this step measures the generator',
      'p99 of the held steps 1-3 and 5 rests on 250 to 1,250 samples (needs 1,000): shown, marked unreliable; longer holds (--hold) or higher rates collect enough',
      'p99.9 of the held steps 1-3 and 5 rests on 250 to 1,250 samples (needs 10,000): shown, marked unreliable; longer holds (--hold) or higher rates collect enough',
    ]);
  });

  it('a single step reads as one, with its one count', () => {
    expect(runWarnings([thin(2, 400)], rules)[0]).toMatch(
      /^p99 of the held step 3 rests on 400 samples \(needs 1,000\)/,
    );
  });

  it('step lists join runs of three or more', () => {
    expect(stepList([0])).toBe('1');
    expect(stepList([0, 1])).toBe('1 and 2');
    expect(stepList([4, 0, 1, 2, 7, 9, 8, 2])).toBe('1-3, 5 and 8-10');
    expect(stepList([])).toBe('');
  });
});

describe('the threads stage and a generator short of CPU', () => {
  const kept = (detail: string, threads: { kept: number; of: number }) => [
    { name: 'threads' as const, status: 'pass' as const, durationMs: 1, detail, evidence: [], threads },
  ];
  const oneOfTwo = kept(
    'the warmup cost 40.0 µs of thread time per arrival (median of 6 warm seconds on 2 threads): the top rate, 10,000 req/s, would keep one thread 40% busy (an estimate on the high side), so the steps run on 1 of the 2 threads (each under 60% busy)',
    { kept: 1, of: 2 },
  );
  const LAG_SYMPTOM = {
    code: 'late-arrivals',
    step: 1,
    figures: { quantile: 99, lagMs: 30, boundMs: 20, lagSamples: 5000 },
  };
  const warning =
    /^the threads stage ran the steps on 1 of the 2 threads from the warmup's cost, and step 2 found the generator short of CPU all the same: set workers: 2 \(--workers 2\)/;

  it('says to set the count when a step on fewer threads was busy, generator-limited or generator-bound', () => {
    for (const over of [
      { generatorBusy: 0.85 },
      { generatorBusy: 0.75, generatorLimited: LAG_SYMPTOM },
      { generatorBusy: 0.72, generatorBound: true },
    ]) {
      const ws = runWarnings([step({ index: 0 }), step({ index: 1, ...over })], rules, oneOfTwo);
      expect(
        ws.filter((w) => warning.test(w)),
        JSON.stringify(over),
      ).toHaveLength(1);
    }
  });

  it('says nothing when every thread ran, no step was short of CPU, or the threads were under 70% busy (stalls, which more threads would not help)', () => {
    const busy = [step({ index: 1, generatorBusy: 0.85 })];
    const allKept = kept(
      'the warmup cost 90.0 µs ... would keep one thread 90% busy (an estimate on the high side), so all 2 threads run the steps',
      { kept: 2, of: 2 },
    );
    expect(runWarnings(busy, rules, allKept).filter((w) => w.startsWith('the threads stage'))).toEqual([]);
    expect(runWarnings(busy, rules, []).filter((w) => w.startsWith('the threads stage'))).toEqual([]);
    expect(
      runWarnings([step({ index: 1, generatorBusy: 0.3 })], rules, oneOfTwo).filter((w) =>
        w.startsWith('the threads stage'),
      ),
    ).toEqual([]);
    expect(
      runWarnings([step({ index: 1, generatorBusy: 0.5, generatorLimited: LAG_SYMPTOM })], rules, oneOfTwo).filter(
        (w) => w.startsWith('the threads stage'),
      ),
    ).toEqual([]);
  });
});

describe('a name that failed in a step that held', () => {
  const byName = (failed: number, completed: number, transaction = false) => ({
    ...(transaction ? { transaction: true as const } : {}),
    completedPerSec: completed / 5,
    throughputPerSec: (completed - failed) / 5,
    completed,
    ok: completed - failed,
    failed,
    errorRate: failed / completed,
    errors: { other: failed },
    latency: [],
    meanMs: null,
    maxMs: null,
  });

  it('is warned of, once a name, with its steps and worst share (the stop rule judges the arrivals as a whole)', () => {
    const steps = [
      step({ index: 0, byName: { read: byName(0, 70), tx: byName(5, 5, true) } }),
      step({ index: 1, byName: { read: byName(1, 140), tx: byName(9, 10, true) } }),
      // a step that failed says so itself
      step({ index: 2, verdict: 'fails', byName: { read: byName(100, 210), tx: byName(15, 15, true) } }),
    ];
    const w = runWarnings(steps, rules);
    expect(w).toEqual([
      '"tx" failed 100% of its arrivals in steps 1 and 2, which held on the run\'s arrivals as a whole: the capacity is the other entries\', with this one failing; read its errors in the table by name and fix them before taking the capacity',
    ]);
  });

  it('not below half its completions, nor under 5 failures', () => {
    const steps = [step({ byName: { read: byName(30, 70), tx: byName(4, 4, true) } })];
    // read's 30% is said by the warning of failures in held steps (failures-in-held.ts), tx's 4 by none
    const [held, ...more] = warningValues(steps, rules);
    expect(held.code).toBe('failures-in-held');
    expect(more).toEqual([]);
    expect(held.figures.names).toBe('["read"]');
  });
});

describe('a run refused by a stage before its steps', () => {
  it('warns of no empty step window: no step ran, and the stop line says why', () => {
    const notRun = stepResult({ index: 0, verdict: 'not-run', steadyS: 0, steadyStartS: 2, steadyEndS: 3 });
    const reset = { name: 'reset' as const, status: 'fail' as const, durationMs: 1, detail: 'x', evidence: [] };
    expect(warningValues([notRun], rules, [reset]).map((w) => w.code)).not.toContain('window-empty');
    // a step with no data in a run whose stages passed is still said
    expect(warningValues([notRun], rules, []).map((w) => w.code)).toContain('window-empty');
  });
});
