/**
 * The shape of plateau.config.ts, validated with zod. Every field carries its unit in its name.
 * Cross-field rules (max >= start, settle < hold, ...) live in validate.ts so that every problem is
 * reported at once.
 */
import { z } from 'zod';

const positive = (what: string) => z.number({ error: `must be a number (${what})` }).positive({ error: `must be > 0 (${what})` });
const nonNegative = (what: string) => z.number({ error: `must be a number (${what})` }).min(0, { error: `must be >= 0 (${what})` });
const positiveInt = (what: string) => z.number({ error: `must be a whole number (${what})` }).int({ error: `must be a whole number (${what})` }).positive({ error: `must be > 0 (${what})` });

/** Why `new RegExp(pattern)` would throw, or undefined when it compiles. */
function regExpProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    // "Invalid regular expression: /(/: Unterminated group" -> "Unterminated group"
    return ((err as Error).message.split(': ').pop() ?? String(err)).trim();
  }
}

/** A run id names a directory under output.dir: never the dir itself, its parent, or the `latest` link. */
function runIdProblem(id: string): string | undefined {
  if (/^\.+$/.test(id)) return `"${id}" is not a run name (".", ".." name the output directory itself or its parent): use a name such as checkout-2024-06-01`;
  if (id.toLowerCase() === 'latest') return '"latest" is reserved for the link to the newest run in the output directory: choose another name, e.g. checkout-2024-06-01';
  return undefined;
}

const resetHook = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('command'), run: z.string().min(1), timeoutS: positive('seconds the command may take').default(60) }),
  z.strictObject({
    kind: z.literal('http'),
    method: z.string().default('POST'),
    /** Absolute, or a path on the target's origin. */
    url: z.string().min(1),
    body: z.string().optional(),
    expectStatus: z.number().int().default(200),
    timeoutS: positive('seconds the call may take').default(60),
  }),
  z.strictObject({
    kind: z.literal('sql'),
    driver: z.literal('sqlite').default('sqlite'),
    /** For SQLite, the database file. */
    database: z.string().min(1),
    statements: z.array(z.string().min(1)).min(1, { error: 'give at least one statement' }),
    guard: z.strictObject({
      tables: z.array(z.string().min(1)).min(1, { error: 'list the tables the reset may touch' }),
      /** Matched (new RegExp(pattern), no flags) against the database's name before any destructive statement. */
      databasePattern: z.string({ error: 'must be a regular expression as a string, e.g. "^staging-"' })
        .min(1, { error: 'must not be empty (it would match every database): give a pattern such as "^staging-"' })
        .superRefine((pattern, ctx) => {
          const why = regExpProblem(pattern);
          if (why !== undefined) {
            ctx.addIssue({
              code: 'custom',
              message: `${JSON.stringify(pattern)} is not a valid regular expression (${why}): escape special characters with a backslash, e.g. "^staging\\(eu\\)$", or anchor a plain name, e.g. "^staging-"`,
            });
          }
        }),
    }),
  }),
]);

export type ResetHook = z.output<typeof resetHook>;

const WORKERS_ERROR = "must be 'auto' (one thread per CPU this process may use) or a whole number of threads >= 1, e.g. --workers 2 or workers: 2";

export const configSchema = z.strictObject({
  target: z.strictObject({
    /** The URL under load; a scenario's relative URLs resolve against its origin. */
    url: z.url({ error: 'must be an absolute http(s) URL such as http://127.0.0.1:8080/orders' }),
    healthPath: z.string().default('/health'),
    rttPath: z.string().optional(),
  }),
  /** Path of a scenario module (defineScenario); without one, every request is GET target.url. */
  scenario: z.string().optional(),
  steps: z.strictObject({
    startPerSec: positive('arrivals per second of the first step'),
    stepPerSec: positive('rate added at each step, an absolute req/s'),
    maxPerSec: positive('rate of the last step'),
    rampS: nonNegative('seconds of linear ramp before each hold'),
    holdS: positive('seconds each rate is held'),
    /** Seconds at the start of each hold excluded from judging; default max(5, 10% of the hold). */
    settleS: nonNegative('seconds excluded at the start of each hold').optional(),
  }),
  vus: z.strictObject({
    preAllocated: positiveInt('VUs allocated before load').optional(),
    max: positiveInt('upper bound of VUs').optional(),
    /** Expected service time used to size VUs when not given (ms). */
    expectedServiceMs: positive('expected service time in ms').default(50),
    headroom: positive('multiplier on rate x (service time + RTT)').default(2),
  }).default({ expectedServiceMs: 50, headroom: 2 }),
  http: z.strictObject({
    timeoutMs: positive('per-request timeout in ms').default(10_000),
    /** The native engine's HTTP/1.1 client: the bare socket client (default: a quarter less CPU per request, a higher ceiling), or undici (docs/decisions/010). */
    client: z.enum(['undici', 'socket']).default('socket'),
  }).default({ timeoutMs: 10_000, client: 'socket' }),
  rules: z.strictObject({
    deliveryMin: z.number().gt(0).max(1).default(0.9),
    captureMin: z.number().gt(0).max(1).default(0.6),
    minTailSamples: positiveInt('tail samples a percentile needs to be trusted').default(30),
  }).default({ deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 }),
  warmup: z.strictObject({
    enabled: z.boolean().default(true),
    /** Rate of the warmup; default half the first step's rate. */
    ratePerSec: positive('warmup arrivals per second').optional(),
    windowS: positiveInt('seconds per stability window').default(2),
    stableWindows: positiveInt('consecutive stable windows needed').default(3),
    tolerance: z.number().gt(0).lt(1).default(0.1),
    maxS: positive('longest warmup in seconds').default(30),
    /** Seconds the warmup runs at the least, stable or not (a target known to warm slowly). */
    minS: nonNegative('shortest warmup in seconds').default(0),
  }).default({ enabled: true, windowS: 2, stableWindows: 3, tolerance: 0.1, maxS: 30, minS: 0 }),
  /** The target's Prometheus endpoint (e.g. /actuator/prometheus), read at every steady window's edges. */
  metrics: z.strictObject({
    /** The target's own endpoint, read directly; optional when `prometheus` is given. */
    url: z.string().min(1).optional(),
    /** A Prometheus server that scrapes the target: each steady window is also read through PromQL. */
    prometheus: z.strictObject({
      url: z.url({ error: 'must be the Prometheus server, e.g. http://127.0.0.1:9090' }),
      /** Seconds to wait after the last step so that Prometheus has scraped its end. */
      settleS: nonNegative('seconds to wait for the last scrape').default(3),
    }).optional(),
    /** Metric family names that must be present, e.g. http_server_requests_seconds_count. */
    series: z.array(z.string().min(1)).default([]),
    /** Seconds between readings for the run's time series (the window edges are read in any case). */
    scrapeEveryS: positiveInt('seconds between metric readings').default(5),
    /** The request timer: <name>_count, <name>_sum (s) and <name>_max (s), filtered by labels. */
    requests: z.strictObject({
      name: z.string().default('http_server_requests_seconds'),
      labels: z.record(z.string(), z.string()).default({}),
    }).default({ name: 'http_server_requests_seconds', labels: {} }),
    /** Connection-pool gauges (HikariCP names by default; R2DBC: r2dbc_pool_acquired_connections, ...). */
    pool: z.strictObject({
      active: z.string().default('hikaricp_connections_active'),
      pending: z.string().default('hikaricp_connections_pending'),
      max: z.string().default('hikaricp_connections_max'),
      labels: z.record(z.string(), z.string()).default({}),
    }).default({ active: 'hikaricp_connections_active', pending: 'hikaricp_connections_pending', max: 'hikaricp_connections_max', labels: {} }),
    /** Any other gauges to record and chart. */
    gauges: z.array(z.string().min(1)).default([]),
  }).optional(),
  /** A probe of the target's topology (replicas, instances); a change inside a step contaminates it. */
  topology: z.strictObject({
    /** A metric series read with the metrics (e.g. kube_deployment_status_replicas). */
    metric: z.string().optional(),
    /** Or a shell command that prints a number. */
    command: z.string().optional(),
    everyS: positiveInt('seconds between topology readings').default(2),
    /** Rerun a contaminated step once. */
    rerun: z.boolean().default(true),
  }).optional(),
  /** How failed steps are classified before they count. */
  verdicts: z.strictObject({
    /** Rerun a failed step once at the same rate; a rerun that holds marks the first transient. */
    confirmFailedStep: z.boolean().default(true),
    /** Generator-bound: symptoms (drops, lag, loop delay) with a low target tail. */
    lagP99MaxMs: positive('scheduler lag bound in ms').default(20),
    loopDelayMaxMs: positive('event-loop delay bound in ms').default(100),
    /** The generator's busiest thread busier than this share of the window (event-loop utilisation), or its process (k6's) using more of its CPUs. */
    generatorBusyMax: z.number({ error: 'must be a share between 0 and 1, e.g. 0.9 (generator busy bound)' })
      .gt(0, { error: 'must be > 0 and <= 1, e.g. 0.9 (generator busy bound)' }).lte(1, { error: 'must be > 0 and <= 1, e.g. 0.9 (generator busy bound)' }).default(0.9),
    tailFactor: positive('how much the tail may grow over the first step and still be low').default(3),
    /** maxVUs may be raised up to this (x2 each time) to rerun a step that dropped arrivals. */
    maxVUsBound: positiveInt('largest maxVUs plateau may raise to').default(5000),
  }).default({ confirmFailedStep: true, lagP99MaxMs: 20, loopDelayMaxMs: 100, generatorBusyMax: 0.9, tailFactor: 3, maxVUsBound: 5000 }),
  reset: z.strictObject({
    hooks: z.array(resetHook).default([]),
  }).default({ hooks: [] }),
  rtt: z.strictObject({
    samples: positiveInt('RTT samples').default(20),
  }).default({ samples: 20 }),
  output: z.strictObject({
    dir: z.string().default('runs'),
    runId: z.string({ error: 'must be a string of letters, digits, dot, dash, underscore (at most 64)' })
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'use letters, digits, dot, dash, underscore (at most 64)' })
      .superRefine((id, ctx) => {
        const why = runIdProblem(id);
        if (why !== undefined) ctx.addIssue({ code: 'custom', message: why });
      })
      .optional(),
  }).default({ dir: 'runs' }),
  /** Which engine sends the load: the embedded one, or k6 (harness/k6) driven through its output. */
  engine: z.enum(['native', 'k6']).default('native'),
  /** Native engine threads: 'auto' = one per CPU this process may use (cores, capped by a cgroup CPU quota); 1 = the main thread only. */
  workers: z.union([z.literal('auto'), z.number().int({ error: WORKERS_ERROR }).positive({ error: WORKERS_ERROR })], { error: WORKERS_ERROR }).default('auto'),
  k6: z.strictObject({
    /** k6 output plateau streams: JSON lines (default) or CSV (unix_milli timestamps), optionally gzip. */
    out: z.enum(['json', 'json.gz', 'csv', 'csv.gz']).default('json'),
    /** k6's --execution-segment / --execution-segment-sequence, for one instance of several. */
    executionSegment: z.string().optional(),
    executionSegmentSequence: z.string().optional(),
  }).default({ out: 'json' }),
  /** Optional cost per request, shown by `plateau gate` and `plateau compare` (flags override it). */
  cost: z.strictObject({
    /** Price of the target per month: fixed cost per request = monthlyCost / (capacity x seconds in a month). */
    monthlyCost: nonNegative('price of the target per month').optional(),
    /** A gauge series of units consumed per second (usage cost per request). */
    usageSeries: z.string().optional(),
    unitPrice: nonNegative('price of one unit of usageSeries').optional(),
    currency: z.string().optional(),
  }).optional(),
  /** Safety caps (harness/limits.ts): a plan over one is refused before load; the engine stays under them. */
  limits: z.strictObject({
    maxRatePerSec: positive('highest arrival rate any step or the warmup may offer').default(100_000),
    maxDurationS: positive('longest time a run may offer load, warmup included').default(3600),
    maxInFlight: positiveInt('most requests in flight at once (bounds the VUs)').default(10_000),
  }).default({ maxRatePerSec: 100_000, maxDurationS: 3600, maxInFlight: 10_000 }),
  /** Seconds the engine waits for in-flight requests when it stops. */
  gracefulStopS: nonNegative('seconds to let in-flight requests finish').default(2),
});

export type PlateauConfigInput = z.input<typeof configSchema>;
export type PlateauConfig = z.output<typeof configSchema>;
