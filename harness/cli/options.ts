/** The run/plan flags, shared by both commands. Units are in the flag names. */
import type { Argv } from 'yargs';
import type { Overrides } from '../config/load.ts';
import { EXIT, PlateauError } from '../errors.ts';

export function loadOptions<T>(y: Argv<T>) {
  return y
    .option('config', { type: 'string', describe: 'plateau.config.ts to use (default: ./plateau.config.ts when present)' })
    .option('demo', { type: 'boolean', default: false, describe: 'start the embedded demo target on 127.0.0.1 and load it' })
    .option('demo-slots', { type: 'number', default: 4, describe: 'demo: pool slots' })
    .option('demo-hold-ms', { type: 'number', default: 10, describe: 'demo: ms each request holds a slot (capacity = slots / hold)' })
    .option('target', { type: 'string', describe: 'URL under load, e.g. http://127.0.0.1:8080/orders' })
    .option('scenario', { type: 'string', describe: 'scenario module (defineScenario); default GET on the target' })
    .option('start-rate', { type: 'number', describe: 'first step, req/s' })
    .option('step-rate', { type: 'number', describe: 'rate added per step, req/s' })
    .option('max-rate', { type: 'number', describe: 'last step, req/s' })
    .option('hold', { type: 'number', describe: 'seconds each step holds its rate' })
    .option('ramp', { type: 'number', describe: 'seconds of ramp before each hold' })
    .option('settle', { type: 'number', describe: 'seconds at the start of each hold left out of judging' })
    .option('vus', { type: 'number', describe: 'preallocated VUs (default: sized by Little\'s law)' })
    .option('max-vus', { type: 'number', describe: 'upper bound of VUs' })
    .option('timeout-ms', { type: 'number', describe: 'per-request timeout' })
    .option('http-client', { choices: ['undici', 'socket'] as const, describe: 'native engine: the bare socket client (default) or undici' })
    .option('run-id', { type: 'string', describe: 'name of the run (default: timestamp + random)' })
    .option('out', { type: 'string', describe: 'directory of run stores (default runs)' })
    .option('warmup', { type: 'boolean', describe: 'run the warmup stage (--no-warmup to skip)' })
    .option('workers', { type: 'string', describe: "native engine threads: 'auto' (one per CPU this process may use: cores, capped by a container's CPU quota) or a number" })
    .option('engine', { choices: ['native', 'k6'] as const, describe: 'who sends the load: the embedded engine (default) or k6 (found via K6_BIN or PATH)' })
    .option('execution-segment', { type: 'string', describe: 'k6: this instance\'s share of the arrivals, e.g. 0:1/2 (passed to k6)' })
    .option('execution-segment-sequence', { type: 'string', describe: 'k6: every instance\'s cut points, e.g. 0,1/2,1 (passed to k6)' })
    .option('k6-out', { choices: ['json', 'json.gz', 'csv', 'csv.gz'] as const, describe: 'k6: output format plateau streams (default json)' });
}

export function overridesOf(a: Record<string, unknown>): Overrides {
  // yargs collects a flag given twice into an array: which value was meant is the user's to say
  const twice = Object.entries(a).filter(([k, v]) => Array.isArray(v) && k !== '_' && !/[A-Z]/.test(k));
  if (twice.length > 0) {
    const [k, v] = twice[0];
    throw new PlateauError(`--${k} was given ${(v as unknown[]).length} times (${(v as unknown[]).map(String).join(', ')})`, `give --${k} once`, 'flag-repeated', EXIT.usage);
  }
  const n = (k: string) => (a[k] === undefined ? undefined : Number(a[k]));
  return {
    target: a.target as string | undefined,
    scenario: a.scenario as string | undefined,
    startRate: n('start-rate'),
    stepRate: n('step-rate'),
    maxRate: n('max-rate'),
    hold: n('hold'),
    ramp: n('ramp'),
    settle: n('settle'),
    vus: n('vus'),
    maxVus: n('max-vus'),
    timeoutMs: n('timeout-ms'),
    httpClient: a['http-client'] as 'undici' | 'socket' | undefined,
    runId: a['run-id'] as string | undefined,
    out: a.out as string | undefined,
    warmup: a.warmup as boolean | undefined,
    engine: a.engine as 'native' | 'k6' | undefined,
    workers: a.workers === undefined ? undefined : a.workers === 'auto' ? 'auto' : Number(a.workers),
    executionSegment: a['execution-segment'] as string | undefined,
    executionSegmentSequence: a['execution-segment-sequence'] as string | undefined,
    k6Out: a['k6-out'] as string | undefined,
  };
}
