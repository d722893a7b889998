/**
 * The shape of plateau.config.ts, validated with zod. Every field carries its unit in its name and
 * its description in zod's metadata (field-kinds.ts), from which docs/config.md is generated.
 * Cross-field rules (max >= start, settle < hold, ...) live in cross-field.ts so that every problem
 * is reported at once.
 */
import { z } from 'zod';
import { DEFAULT_RULES } from '../../analysis/plan.ts';
import { sloQuantileProblem } from '../../analysis/slo.ts';
import { about, flag, nonNegative, originPath, positive, positiveInt, share, text, timerMs } from './field-kinds.ts';
import { metricsSection } from './metrics-schema.ts';
import { resetHook } from './reset-schema.ts';
import { probesSection } from '../probes/probes-schema.ts';

export type { ResetHook } from './reset-schema.ts';

/** A run id names a directory under output.dir: never the dir itself, its parent, or the `latest` link. */
function runIdProblem(id: string): string | undefined {
  if (/^\.+$/.test(id))
    return `"${id}" is not a run name (".", ".." name the output directory itself or its parent): use a name such as checkout-2024-06-01`;
  if (id.toLowerCase() === 'latest')
    return '"latest" is reserved for the link to the newest run in the output directory: choose another name, e.g. checkout-2024-06-01';
  return undefined;
}

const WORKERS_ERROR =
  "must be 'auto' (one thread per CPU this process may use) or a whole number of threads >= 1, e.g. --workers 2 or workers: 2";

export const configSchema = z.strictObject({
  target: z
    .strictObject({
      url: z
        .url({ error: 'must be an absolute http(s) URL such as http://127.0.0.1:8080/orders' })
        .meta(
          about(
            "the URL under load; a scenario's relative URLs resolve against its origin",
            'http://127.0.0.1:8080/orders',
          ),
        ),
      healthPath: originPath("path on the target's origin that must answer before any load").default('/health'),
      rttPath: originPath("path on the target's origin used to measure the round trip; default healthPath").optional(),
    })
    .describe('the service under load'),
  scenario: text(
    'path of a scenario module (defineScenario), relative to the working directory, not to the config file; without one, every request is GET target.url',
    './scenario.ts',
  ).optional(),
  steps: z
    .strictObject({
      startPerSec: positive('arrivals per second of the first step', 50),
      stepPerSec: positive('rate added at each step, in absolute arrivals per second', 50),
      maxPerSec: positive('rate of the last step', 500),
      rampS: nonNegative('seconds of linear ramp before each hold, in whole seconds', 5),
      holdS: positive('seconds each rate is held, in whole seconds', 30),
      settleS: nonNegative(
        'seconds at the start of each hold excluded from judging; default max(5, 10% of the hold), at most half the hold, in whole seconds',
        5,
      ).optional(),
    })
    .describe('the stepped load: an open model, one fixed arrival rate per step'),
  vus: z
    .strictObject({
      preAllocated: positiveInt(
        "VUs allocated before load; default sized by Little's law, rate x (service time + RTT) x headroom, and after a warmup from its measured time per arrival where longer; at most vus.max when that is given",
        50,
      ).optional(),
      max: positiveInt(
        'upper bound of VUs; default 4x the sized preallocated (after a warmup, sized from its measured time per arrival), at least vus.preAllocated; giving it alone keeps the preallocated sized',
        200,
      ).optional(),
      expectedServiceMs: positive(
        "expected service time that sizes the VUs not given before load (plus the RTT); a mix's transactions' own time in preflight's sample arrivals (think time included) sizes them instead where longer, and after a warmup its measured time per arrival (the whole transaction, think time and RTT included) where longer still: `plateau plan`, which sends nothing, says its figure is provisional then",
      ).default(50),
      headroom: positive(
        "multiplier on rate x time per arrival (service time + RTT, or the warmup's measured one) when sizing VUs",
      ).default(2),
    })
    .describe('virtual users: each has at most one request in flight')
    .default({ expectedServiceMs: 50, headroom: 2 }),
  http: z
    .strictObject({
      timeoutMs: timerMs('per-request timeout').default(10_000),
      maxBodyBytes: positiveInt(
        "the most of a response body a check or a transaction sees (the rest is counted and discarded): res.truncated says a body was cut, and a check's rejection of one says how much of it the check saw",
        65536,
      ).default(65536),
      transactionTimeoutMs: timerMs(
        'the most a transaction (run(ctx, http)) may take, think time included: one not ended by then fails its arrival (kind timeout) and frees its VU; on k6 only where it has global timers (docs/engines.md); `ctx.sleep` refuses longer think time',
      ).default(30_000),
      client: z
        .enum(['undici', 'socket'])
        .describe(
          "the native engine's HTTP/1.1 client: the bare socket client, a quarter less CPU per request and a higher ceiling, or undici; see docs/decisions/010",
        )
        .default('socket'),
    })
    .describe("the native engine's HTTP client")
    .default({ timeoutMs: 10_000, client: 'socket', maxBodyBytes: 65536, transactionTimeoutMs: 30_000 }),
  rules: z
    .strictObject({
      deliveryMin: share('a step holds when throughput / offered rate reaches this').default(DEFAULT_RULES.deliveryMin),
      captureMin: share('share of the rate added since the previous step that throughput must gain').default(
        DEFAULT_RULES.captureMin,
      ),
      minTailSamples: positiveInt('tail samples a percentile needs to be trusted').default(
        DEFAULT_RULES.minTailSamples,
      ),
    })
    .describe('when a step holds')
    .default({ ...DEFAULT_RULES }),
  warmup: z
    .strictObject({
      enabled: flag('warm the target up before the first step').default(true),
      ratePerSec: positive("rate of the warmup; default half the first step's rate", 25).optional(),
      windowS: positiveInt('seconds per stability window').default(2),
      stableWindows: positiveInt('consecutive stable windows needed').default(3),
      tolerance: z
        .number()
        .gt(0)
        .lt(1)
        .meta(about('largest change between windows, in throughput or median latency, still called stable, as a share'))
        .default(0.1),
      maxS: positive('longest warmup').default(30),
      minS: nonNegative(
        'seconds the warmup runs at the least, stable or not, for a target known to warm slowly',
      ).default(0),
    })
    .describe('a moderate rate until throughput and median latency are stable')
    .default({ enabled: true, windowS: 2, stableWindows: 3, tolerance: 0.1, maxS: 30, minS: 0 }),
  metrics: metricsSection.optional(),
  topology: z
    .strictObject({
      metric: text('a metric series read with the metrics (e.g. kube_deployment_status_replicas)').optional(),
      command: text(
        'or a shell command that prints one number >= 0, exits 0 and finishes within 5 s: preflight refuses one that does not; a reading that fails mid-run is named on the steps line',
      ).optional(),
      everyS: positiveInt('seconds between topology readings').default(2),
      rerun: flag(
        'rerun a contaminated step once; a rerun contaminated too stops the run (topology-unsteady: the topology never held still)',
      ).default(true),
    })
    .describe("a probe of the target's topology (replicas, instances); a change inside a step contaminates it")
    .optional(),
  verdicts: z
    .strictObject({
      confirmFailedStep: flag(
        'rerun a failed step once at the same rate; a rerun that holds marks the first transient',
      ).default(true),
      lagP99MaxMs: positive('scheduler lag bound; generator-bound when passed with a low target tail').default(20),
      loopDelayMaxMs: positive('event-loop delay bound').default(100),
      generatorBusyMax: share(
        "the generator's busiest thread busier than this share of the window (event-loop utilisation), or its process (k6's) using more of its CPUs",
        'must be > 0 and <= 1, e.g. 0.9 (generator busy bound)',
      ).default(0.9),
      tailFactor: positive(
        "how much the tail may grow over the first step (the server's median over the warmup's) and still be low",
      ).default(3),
      maxVUsBound: positiveInt(
        'maxVUs may be raised up to this, x2 each time, to rerun a step that dropped arrivals',
      ).default(5000),
    })
    .describe('how failed steps are classified before they count')
    .default({
      confirmFailedStep: true,
      lagP99MaxMs: 20,
      loopDelayMaxMs: 100,
      generatorBusyMax: 0.9,
      tailFactor: 3,
      maxVUsBound: 5000,
    }),
  reset: z
    .strictObject({
      hooks: z.array(resetHook).describe('run in order before the load').default([]),
    })
    .describe("puts the target's data back to a known state before the load")
    .default({ hooks: [] }),
  probes: probesSection.optional(),
  rtt: z
    .strictObject({
      samples: positiveInt('RTT samples').default(20),
    })
    .describe('the round trip to the target, measured before the load')
    .default({ samples: 20 }),
  output: z
    .strictObject({
      dir: text('folder of the run store').default('runs'),
      runId: z
        .string({ error: 'must be a string of letters, digits, dot, dash, underscore (at most 64)' })
        .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'use letters, digits, dot, dash, underscore (at most 64)' })
        .superRefine((id, ctx) => {
          const why = runIdProblem(id);
          if (why !== undefined) ctx.addIssue({ code: 'custom', message: why });
        })
        .meta(
          about(
            "name of the run directory; default generated from the time and a random part. ctx.uniqueId's ids add a suffix of the run's own to a given one, so two runs given one id share no id",
            'checkout-2024-06-01',
          ),
        )
        .optional(),
    })
    .describe('where runs are written')
    .default({ dir: 'runs' }),
  engine: z
    .enum(['native', 'k6'])
    .describe('which engine sends the load: the embedded one, or k6 driven through its output')
    .default('native'),
  workers: z
    .union([z.literal('auto'), z.number().int({ error: WORKERS_ERROR }).positive({ error: WORKERS_ERROR })], {
      error: WORKERS_ERROR,
    })
    .describe(
      "native engine threads: 'auto' = one per CPU this process may use (cores, capped by a cgroup CPU quota); 1 = the main thread only",
    )
    .default('auto'),
  k6: z
    .strictObject({
      out: z
        .enum(['json', 'json.gz', 'csv', 'csv.gz'])
        .describe('k6 output plateau streams: JSON lines or CSV (unix_milli timestamps), optionally gzip')
        .default('json'),
      executionSegment: text("k6's --execution-segment, for one instance of several", '1/3:2/3').optional(),
      executionSegmentSequence: text("k6's --execution-segment-sequence", '0,1/3,2/3,1').optional(),
    })
    .describe('the k6 engine')
    .default({ out: 'json' }),
  cost: z
    .strictObject({
      monthlyCost: nonNegative(
        'price of the target per month: fixed cost per request = monthlyCost / (capacity x seconds in a month)',
        1200,
      ).optional(),
      usageSeries: text('a gauge series of units consumed per second (usage cost per request)').optional(),
      unitPrice: nonNegative('price of one unit of usageSeries', 0.0001).optional(),
      currency: text('currency the costs are shown in', 'EUR').optional(),
    })
    .describe('optional cost per request, shown by `plateau gate` and `plateau compare` (flags override it)')
    .optional(),
  slo: z
    .strictObject({
      quantile: share("the objective's quantile, e.g. 0.99 for p99").default(0.99),
      maxMs: positive('the latency the quantile must stay within (ms)', 300),
      source: z
        .enum(['client', 'server'])
        .meta(about("whose percentile is judged: the client's minus the RTT, or the server's from its histogram"))
        .default('client'),
    })
    .superRefine((slo, ctx) => {
      // the results keep these quantiles only (the step's histogram is not kept): another cannot be
      // judged; a quantile out of (0, 1] already has its problem
      if (!(slo.quantile > 0 && slo.quantile <= 1) || (slo.source !== 'client' && slo.source !== 'server')) return;
      const problem = sloQuantileProblem(slo.quantile, slo.source);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['quantile'], message: problem });
    })
    .describe(
      'a latency objective: the report gives the capacity within it (the highest holding step that met it) beside the plateau; it never stops a run',
    )
    .optional(),
  limits: z
    .strictObject({
      maxRatePerSec: positive('highest arrival rate any step or the warmup may offer').default(100_000),
      maxDurationS: positive('longest time a run may offer load, warmup included').default(3600),
      maxInFlight: positiveInt('most requests in flight at once, which bounds the VUs').default(10_000),
    })
    .describe('safety caps: a plan over one is refused before load; the engine stays under them')
    .default({ maxRatePerSec: 100_000, maxDurationS: 3600, maxInFlight: 10_000 }),
  gracefulStopS: nonNegative('seconds the engine waits for in-flight requests when it stops').default(2),
});

export type PlateauConfigInput = z.input<typeof configSchema>;
export type PlateauConfig = z.output<typeof configSchema>;
