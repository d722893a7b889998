import { describe, expect, it } from 'vitest';
import { analyzeDownstreams, requestsPerSecOver, stepFigures, withDownstreams } from './downstreams.ts';
import { downstreamProblem, scrapeDownstreamWindow } from './downstream-window.ts';
import { emptySample, fakeRun, seriesPoint, stepResult } from './testing/builders.ts';
import type {
  DownstreamConfig,
  DownstreamWindow,
  PromqlWindow,
  SeriesPoint,
  ServerSample,
  ServerWindow,
  StepResult,
  Symptom,
} from './types.ts';

const REDIS: DownstreamConfig = { name: 'redis', ops: 'redis_commands_processed_total' };

/** A step of the run: its verdict, successful req/s, and each downstream's window over 10 s. */
interface FakeDsStep {
  verdict?: StepResult['verdict'];
  okPerSec: number;
  /** By downstream: ops/s (window ops = 10 x), and any other window field. */
  ds: Record<string, { opsPerSec: number } & Partial<DownstreamWindow>>;
  poolPendingMax?: number;
  /** The mean of the pool's active gauge (of 10) over the window. */
  poolActiveMean?: number;
  extra?: Partial<StepResult>;
}

function serverWith(pendingMax: number, activeMean?: number): ServerWindow {
  return {
    ...(activeMean !== undefined ? { poolActiveMean: activeMean } : {}),
    source: 'promql',
    fromS: 0,
    toS: 10,
    throughputPerSec: null,
    meanMs: null,
    maxMs: null,
    poolActiveMax: 10,
    poolPendingMax: pendingMax,
    poolMax: 10,
  };
}

function analyze(declared: DownstreamConfig[], steps: FakeDsStep[], kneeStep: number | null) {
  const results = steps.map((s, index) =>
    stepResult({
      index,
      ratePerSec: 100 * (index + 1),
      throughputPerSec: s.okPerSec,
      verdict: s.verdict ?? 'holds',
      ...(s.poolPendingMax !== undefined
        ? {
            server: serverWith(s.poolPendingMax, s.poolActiveMean),
            poolReading:
              s.poolPendingMax > 0
                ? `short of connections: up to ${s.poolPendingMax} requests waited`
                : `active ${s.poolActiveMean ?? 10} of 10 on average`,
          }
        : {}),
      ...s.extra,
    }),
  );
  const promql: PromqlWindow[] = steps.map((s, index) => ({
    index,
    attempt: 1,
    window: serverWith(0),
    downstreams: Object.fromEntries(
      Object.entries(s.ds).map(([name, { opsPerSec, ...w }]) => [
        name,
        { source: 'promql', fromS: 0, toS: 10, ops: opsPerSec * 10, ...w } as DownstreamWindow,
      ]),
    ),
  }));
  return analyzeDownstreams({ declared, steps: results, samples: [], promql, kneeStep })!;
}

/** Redis at 16 ops per request while the service follows, then flat past the knee at step 3. */
const plateauSteps = (at3: Partial<DownstreamWindow>, extra3: Partial<FakeDsStep> = {}): FakeDsStep[] => [
  { okPerSec: 100, ds: { redis: { opsPerSec: 1600, saturationMax: 0, latencySumS: 0.16, latencyCount: 16000 } } },
  { okPerSec: 200, ds: { redis: { opsPerSec: 3200, saturationMax: 0, latencySumS: 0.32, latencyCount: 32000 } } },
  { okPerSec: 300, ds: { redis: { opsPerSec: 4800, saturationMax: 0, latencySumS: 0.5, latencyCount: 48000 } } },
  { verdict: 'fails', okPerSec: 305, ds: { redis: { opsPerSec: 4880, ...at3 } }, ...extra3 },
];

describe('a downstream is named the limit at the knee only on its own evidence', () => {
  it.each<[string, DownstreamConfig, Partial<DownstreamWindow>, Partial<FakeDsStep>, RegExp]>([
    [
      'its saturation gauge grew',
      { ...REDIS, saturation: 'redis_blocked_clients' },
      { saturationMax: 41 },
      {},
      /^redis: 4,800 ops\/s from step 3 = 300\.0 req\/s x 16\.0 ops per request, its redis_blocked_clients up from 0 to 41 at step 4: at this fan-out redis's ceiling is the service's; fewer round trips per request raise it$/,
    ],
    [
      'its per-op latency grew >= 2x and >= 1 ms while the pool and the generator stayed clear',
      { ...REDIS, latency: 'app_redis_call_seconds' },
      { latencySumS: 73.2, latencyCount: 48800 },
      { poolPendingMax: 0 },
      /its per-op time up from 0\.0100 ms to 1\.50 ms at step 4 \(150\.0x\) while the service's pool had nobody waiting and the generator kept up/,
    ],
    [
      'its ops/s reached its declared ceiling within 10%',
      { ...REDIS, maxOpsPerSec: 5400 },
      {},
      {},
      /4,880 ops\/s at step 4, 90% of its declared ceiling of 5,400 ops\/s/,
    ],
  ])('%s', (_, d, at3, extra3, detail) => {
    const r = analyze([d], plateauSteps(at3, extra3), 2);
    expect(r.verdict).toMatchObject({ limiting: 'redis', pointsTo: 'downstream', step: 3 });
    expect(r.verdict.detail).toMatch(detail);
    expect(r.results[0].limiting).toBe(true);
  });

  it.each<[string, DownstreamConfig, Partial<DownstreamWindow>, Partial<FakeDsStep>, string, RegExp]>([
    [
      'only its ops are declared: the ops flattened, which proves nothing',
      REDIS,
      {},
      {},
      'nothing',
      /no declared downstream \(redis\) showed evidence of its own at the knee; a flat ops rate follows the service's and proves nothing, and neither the service's pool nor the generator shows a limit/,
    ],
    [
      "latency grew but the service's pool had callers waiting: the pool",
      { ...REDIS, latency: 'app_redis_call_seconds' },
      { latencySumS: 73.2, latencyCount: 48800 },
      { poolPendingMax: 7 },
      'pool',
      /The evidence points to the service's connection pool: at step 4 it was short of connections: up to 7 requests waited/,
    ],
    [
      'every connection of the pool busy over the window, nobody waiting: the pool',
      REDIS,
      {},
      { poolPendingMax: 0, poolActiveMean: 9.5 },
      'pool',
      /The evidence points to the service's connection pool: at step 4 it was active 9\.5 of 10 on average/,
    ],
    [
      'the pool busy at one instant only (max 10, mean 4 of 10): not the pool',
      REDIS,
      {},
      { poolPendingMax: 0, poolActiveMean: 4 },
      'nothing',
      /neither the service's pool nor the generator shows a limit/,
    ],
    [
      'latency grew but the generator was the limit: the generator',
      { ...REDIS, latency: 'app_redis_call_seconds' },
      { latencySumS: 73.2, latencyCount: 48800 },
      { extra: { generatorBound: true } },
      'generator',
      /The evidence points to the load generator: step 4 was generator-bound, so the run measured the generator there; first, give the generator more cores or workers \(--workers\), or a machine of its own$/,
    ],
    [
      "the generator the limit by its dropped arrivals: its own fix, more VUs (generator-fix.ts's words)",
      { ...REDIS, latency: 'app_redis_call_seconds' },
      { latencySumS: 73.2, latencyCount: 48800 },
      { extra: { generatorBound: true, dropped: 900, vusAllocatedMax: 200 } },
      'generator',
      /step 4 was generator-bound, so the run measured the generator there; first, allow more VUs \(vus\.max and verdicts\.maxVUsBound; 200 were allocated\)$/,
    ],
    [
      'latency grew by less than 1 ms: not marked',
      { ...REDIS, latency: 'app_redis_call_seconds' },
      { latencySumS: 0.146, latencyCount: 48800 },
      {},
      'nothing',
      /showed evidence of its own/,
    ],
    [
      'ops/s at 88% of the ceiling: not within 10%',
      { ...REDIS, maxOpsPerSec: 5550 },
      {},
      {},
      'nothing',
      /showed evidence of its own/,
    ],
  ])('%s', (_, d, at3, extra3, pointsTo, detail) => {
    const r = analyze([d], plateauSteps(at3, extra3), 2);
    expect(r.verdict.limiting).toBeNull();
    expect(r.verdict.pointsTo).toBe(pointsTo);
    expect(r.verdict.detail).toMatch(detail);
    expect(r.results[0].limiting).toBe(false);
    expect(r.results[0].evidence).toMatch(/^redis: /);
  });

  it.each<[string, Partial<FakeDsStep>, string]>([
    [
      'callers waiting for the pool',
      { poolPendingMax: 7 },
      "the service's pool had callers waiting, a wait a per-op time timed in the service includes",
    ],
    ['the generator bound', { extra: { generatorBound: true } }, 'the generator was not clear'],
  ])(
    'a per-op time that rose 150x where it cannot count (%s): its line says it rose, and why it is discounted',
    (_, extra3, why) => {
      const d = { ...REDIS, latency: 'app_redis_call_seconds' };
      const r = analyze([d], plateauSteps({ latencySumS: 73.2, latencyCount: 48800 }, extra3), 2);
      expect(r.results[0].evidence).toBe(
        `redis: no evidence of its own at the knee: its per-op time at most 1.50 ms (from 0.0100 ms), its rise to 1.50 ms at step 4 discounted: ${why}`,
      );
    },
  );

  /** The knee (step 3) held generator-limited, with the pool's readings at `poolAt3`, and step 4 failed at the target. */
  const kneeGeneratorLimited = (poolAt3: Partial<FakeDsStep>): FakeDsStep[] =>
    plateauSteps({}).map((s, i) =>
      i === 2
        ? {
            ...s,
            ...poolAt3,
            extra: { delivery: 0.99, generatorLimited: { code: 'scheduler-lag', step: 2, figures: { lagP90Ms: 25 } } },
          }
        : s,
    );

  it("a knee held generator-limited with callers waiting for the pool: the pool's evidence, the generator's caveat beside it", () => {
    const r = analyze([REDIS], kneeGeneratorLimited({ poolPendingMax: 33 }), 2);
    expect(r.verdict).toMatchObject({ limiting: null, pointsTo: 'pool', step: 2 });
    expect(r.verdict.detail).toMatch(
      /The evidence points to the service's connection pool: at step 3 it was short of connections: up to 33 requests waited\. Beside it, the load generator: step 3 held generator-limited \(delivery 0\.99\): the target served its rate, but its latencies carry the generator's own delays; first, give the generator more cores/,
    );
    expect(r.verdict.detail).not.toMatch(/measured the generator/);
  });

  it('a knee held generator-limited, the pool clear: the generator, and never "measured the generator" of a step that held', () => {
    const r = analyze([REDIS], kneeGeneratorLimited({ poolPendingMax: 0, poolActiveMean: 4 }), 2);
    expect(r.verdict).toMatchObject({ limiting: null, pointsTo: 'generator', step: 2 });
    expect(r.verdict.detail).toMatch(
      /The evidence points to the load generator: step 3 held generator-limited \(delivery 0\.99\): the target served its rate, but its latencies carry the generator's own delays; first, /,
    );
    expect(r.verdict.detail).not.toMatch(/measured the generator/);
  });

  it('the downstream whose evidence shows first is named, the others keep their own lines', () => {
    const sql: DownstreamConfig = { name: 'sql', ops: 'q_total', maxOpsPerSec: 1000 };
    const steps = plateauSteps({ saturationMax: 41 }).map((s, i) => ({
      ...s,
      ds: {
        redis: { ...s.ds.redis, ...(i === 2 ? { saturationMax: 5 } : {}) },
        sql: { opsPerSec: i < 3 ? 100 * (i + 1) : 950 },
      },
    }));
    const r = analyze([sql, { ...REDIS, saturation: 'redis_blocked_clients' }], steps, 1);
    // sql reached its ceiling at step 4, redis's blocked clients grew at step 3 already
    expect(r.verdict.limiting).toBe('redis');
    expect(r.verdict.step).toBe(2);
    expect(r.results.map((x) => [x.name, x.limiting, x.evidenceKind])).toEqual([
      ['sql', false, 'ceiling'],
      ['redis', true, 'saturation'],
    ]);
  });

  it('an exporter gone from the knee on: no figures there clear nothing, and the verdict says it is not cleared', () => {
    const d = { ...REDIS, saturation: 'redis_blocked_clients', latency: 'app_redis_call_seconds' };
    const gone = (s: FakeDsStep, i: number): FakeDsStep =>
      i >= 2 ? { ...s, ds: { redis: { opsPerSec: 0, ops: null, saturationMax: null, saturationStart: null } } } : s;
    const r = analyze([d], plateauSteps({}).map(gone), 2);
    expect(r.results[0].evidence).toBe(
      'redis: no figures were read at the knee or after it (steps 3 and 4; see its problems): whether it limited the service cannot be told',
    );
    expect(r.verdict.detail).toMatch(
      /^no declared downstream \(redis\) showed evidence of its own at the knee \(redis read no figures at some step from the knee on, where it is not cleared: see its line\); /,
    );
    // gone past the knee only: the knee clears it, the step after is said to be uncovered
    const late = analyze(
      [d],
      plateauSteps({}).map((s, i) => (i === 3 ? gone(s, i) : s)),
      2,
    );
    expect(late.results[0].evidence).toBe(
      'redis: no evidence of its own at the knee: its redis_blocked_clients at most 0 (from 0), its per-op time at most 0.0104 ms (from 0.0100 ms); no figures at step 4 (see its problems), which this does not cover',
    );
    // read throughout: no such clause
    expect(analyze([d], plateauSteps({}), 2).verdict.detail).not.toMatch(/read no figures/);
  });

  it('a run stopped before any step ran (preflight failed): nothing judged, and never "nothing limited the service"', () => {
    const steps = plateauSteps({})
      .slice(0, 1)
      .map((s) => ({ ...s, verdict: 'not-run' as const, okPerSec: 0, ds: {} }));
    const r = analyze([{ ...REDIS, maxOpsPerSec: 4900 }], steps, null);
    expect(r.verdict).toEqual({
      limiting: null,
      pointsTo: 'nothing',
      step: null,
      detail: 'no step ran, so no downstream can be judged',
    });
    expect(r.results[0].evidence).toBe('redis: no step ran, so no figure of it was read');
  });

  it('no step failed past the knee: nothing is named', () => {
    const steps = plateauSteps({}).map((s) => ({ ...s, verdict: 'holds' as const }));
    const r = analyze([{ ...REDIS, maxOpsPerSec: 4900 }], steps, 3);
    expect(r.verdict).toMatchObject({ limiting: null, pointsTo: 'nothing' });
    expect(r.verdict.detail).toMatch(/^no step failed past step 4: nothing limited the service at the rates offered/);
  });
});

/** Every number to 9 decimals, so that 16.599999999999998 reads 16.6. */
function rounded<T>(x: T): T {
  return JSON.parse(JSON.stringify(x), (_, v) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v)) as T;
}

describe('per step: ops/s, ops per successful request, shares', () => {
  const w = (over: Partial<DownstreamWindow>): DownstreamWindow => ({
    source: 'scrape',
    fromS: 10,
    toS: 20,
    ops: 16_600,
    ...over,
  });
  it.each<[string, DownstreamConfig, Partial<StepResult>, DownstreamWindow | null, object]>([
    [
      'one request per arrival: over throughputPerSec',
      REDIS,
      { throughputPerSec: 100 },
      w({}),
      { name: 'redis', opsPerSec: 1660, opsPerRequest: 16.6 },
    ],
    [
      "a mix: over the request names' ok/s (a transaction's arrivals left out)",
      REDIS,
      {
        throughputPerSec: 50,
        requestsPerSec: 166,
        byName: {
          checkout: { transaction: true, throughputPerSec: 50 } as never,
          'read cart': { throughputPerSec: 100 } as never,
          pay: { throughputPerSec: 66 } as never,
        },
      },
      w({ ops: 16_600 * 1.66 }),
      { opsPerSec: 2755.6, opsPerRequest: 16.6 },
    ],
    [
      'shares by splitBy and saturation and latency',
      { ...REDIS, splitBy: 'instance', saturation: 'b', latency: 'l' },
      { throughputPerSec: 100 },
      w({
        byLabel: { b: 4150, a: 12450 },
        saturationStart: 0,
        saturationMax: 3,
        latencySumS: 1.66,
        latencyCount: 16600,
      }),
      {
        shares: { a: 0.75, b: 0.25 },
        byLabelPerSec: { a: 1245, b: 415 },
        saturationStart: 0,
        saturationMax: 3,
        latencyMeanMs: 0.1,
      },
    ],
    [
      'a counter that went backwards: no figures',
      REDIS,
      {},
      w({ ops: 10, counterReset: true }),
      { opsPerSec: null, opsPerRequest: null, counterReset: true },
    ],
    ['no window', REDIS, {}, null, { name: 'redis', opsPerSec: null, opsPerRequest: null }],
  ])('%s', (_, d, step, win, want) => {
    expect(rounded(stepFigures(d, stepResult(step), win))).toMatchObject(want);
  });
});

describe("the requests of the downstream window's own interval", () => {
  const point = (tS: number, ok: number): SeriesPoint => seriesPoint({ tS, ok });
  // a steady window of 60 req/s whose last second caught up a backlog: 70 req/s over the step's whole seconds
  const series = [point(9, 60), point(10, 60), point(11, 60), point(12, 100), point(13, 60)];
  const step = stepResult({ throughputPerSec: 70 });
  it.each<[string, number, number, number]>([
    ['a window that misses the backlog second reads its own 60 req/s', 10.5, 12, 60],
    ['a window over every second reads their mean, seconds cut where it cuts them', 10, 13, (60 + 60 + 100) / 3],
    ['a window the series does not cover falls back to the step', 20, 23, 70],
  ])('%s', (_, fromS, toS, want) => {
    expect(requestsPerSecOver(step, series, fromS, toS)).toBeCloseTo(want, 9);
  });

  it("divides the window's ops by them: 4 calls per request through a backlog", () => {
    const w: DownstreamWindow = { source: 'promql', fromS: 10.5, toS: 12, ops: 4 * 90 };
    expect(stepFigures(REDIS, step, w, series)).toMatchObject({ opsPerSec: 240, opsPerRequest: 4, requestsPerSec: 60 });
    expect(stepFigures(REDIS, step, w).opsPerRequest).toBeCloseTo(240 / 70, 9);
  });
});

describe('the direct readings nearest the window edges', () => {
  const reading = (tS: number, ops: number | null, over: Partial<ServerSample> = {}): ServerSample =>
    emptySample(tS, {
      downstreams: { redis: { ops, byLabel: { a: (ops ?? 0) / 2, b: (ops ?? 0) / 2 }, saturation: tS } },
      ...over,
    });
  it.each<[string, ServerSample[], object | null]>([
    [
      'deltas between the edges, the max gauge between them',
      [reading(9.9, 100), reading(15, 600), reading(20.1, 1100)],
      { fromS: 9.9, toS: 20.1, ops: 1000, byLabel: { a: 500, b: 500 }, saturationStart: 9.9, saturationMax: 20.1 },
    ],
    [
      'a counter that went backwards: marked, never negative',
      [reading(10, 900), reading(20, 100)],
      { ops: null, counterReset: true },
    ],
    [
      'the problems of the readings, deduplicated',
      [
        reading(10, null, { problems: [downstreamProblem('redis', 'x'), 'other'] }),
        reading(20, null, { problems: [downstreamProblem('redis', 'x')] }),
      ],
      { ops: null, problems: ['downstream redis: x'] },
    ],
    ['no reading near an edge', [reading(10, 100), reading(17, 600)], null],
  ])('%s', (_, samples, want) => {
    const w = scrapeDownstreamWindow(samples, 'steps', 'redis', 10, 20);
    if (want === null) expect(w).toBeNull();
    else expect(w).toMatchObject(want);
  });
});

describe('warnings', () => {
  const codes = (ws: Symptom[]) => ws.map((w) => w.code);

  it('a fan-out that moves by more than 15% between holding steps', () => {
    const steps: FakeDsStep[] = [
      { okPerSec: 100, ds: { redis: { opsPerSec: 1600 } } },
      { okPerSec: 200, ds: { redis: { opsPerSec: 3300 } } },
      { okPerSec: 300, ds: { redis: { opsPerSec: 3600 } } },
    ];
    const r = analyze([REDIS], steps, 2);
    expect(codes(r.warnings)).toEqual(['downstream-fan-out']);
    expect(r.warnings[0]).toMatchObject({ step: 2, figures: { name: 'redis', fromStep: 0, fromOpsPerRequest: 16 } });
    expect(r.warnings[0].figures.toOpsPerRequest).toBeCloseTo(12, 6);
    expect(r.results[0].fanOutChanged).toBe(true);
    expect(codes(analyze([REDIS], steps.slice(0, 2), 1).warnings)).toEqual([]);
  });

  it('a fan-out that fell as the rate rose, as a constant background makes it: the line is in the warning', () => {
    // 2.5 calls per request and the exporter's 6 ops/s, as at 10, 50 and 90 req/s
    const steps: FakeDsStep[] = [10, 50, 90].map((okPerSec) => ({
      okPerSec,
      ds: { redis: { opsPerSec: 6 + 2.5 * okPerSec } },
    }));
    const r = analyze([REDIS], steps, 2);
    expect(codes(r.warnings)).toEqual(['downstream-fan-out']);
    expect(rounded(r.warnings[0].figures)).toMatchObject({
      backgroundOpsPerSec: 6,
      opsPerRequest: 2.5,
      fitSteps: [0, 1, 2],
    });
    // a move the line does not explain keeps the warning as it was
    const moved = analyze(
      [REDIS],
      [100, 200, 300].map((okPerSec, k) => ({ okPerSec, ds: { redis: { opsPerSec: [1600, 3300, 3600][k] } } })),
      2,
    );
    expect(moved.warnings[0].figures).not.toHaveProperty('backgroundOpsPerSec');
  });

  it.each<[string, Record<string, number>[], object | null]>([
    [
      'even shards',
      [
        { a: 500, b: 500 },
        { a: 1000, b: 1000 },
      ],
      null,
    ],
    [
      'one of two over 1.5 x the mean, growing with the others',
      [
        { a: 800, b: 200 },
        { a: 1600, b: 400 },
      ],
      { value: 'a', grewAlone: false },
    ],
    [
      'one key hashed to one slot: it grew, the others stayed flat',
      [
        { a: 400, b: 300, c: 300 },
        { a: 1400, b: 300, c: 310 },
      ],
      { value: 'a', grewAlone: true },
    ],
  ])('hot shard: %s', (_, byStep, want) => {
    const steps: FakeDsStep[] = byStep.map((byLabel, i) => ({
      okPerSec: 100 * (i + 1),
      ds: { redis: { opsPerSec: Object.values(byLabel).reduce((a, v) => a + v, 0) / 10, byLabel } },
    }));
    const r = analyze([{ ...REDIS, splitBy: 'instance' }], steps, 1);
    const hot = r.warnings.find((w) => w.code === 'downstream-hot-shard');
    if (want === null) expect(hot).toBeUndefined();
    else {
      expect(hot?.figures).toMatchObject({ name: 'redis', splitBy: 'instance', ...want });
      expect(r.results[0].hotShard).toBe('a');
    }
  });
});

describe('withDownstreams', () => {
  it('leaves a run with no declared downstream as it was (stored runs render unchanged)', () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    expect(withDownstreams({}, run)).toBe(run);
    expect(withDownstreams({ serverConfig: { downstreams: [] } }, run)).toBe(run);
  });

  it('adds the steps, results, verdict and warnings of the declared ones', () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    const out = withDownstreams({ serverConfig: { downstreams: [REDIS] }, samples: [] }, run);
    expect(out.steps.every((s) => s.downstreams?.[0].name === 'redis')).toBe(true);
    expect(out.downstreams?.map((d) => d.name)).toEqual(['redis']);
    expect(out.downstreams?.[0].evidence).toMatch(/no figures were read/);
    expect(out.downstreamVerdict?.limiting).toBeNull();
  });
});
