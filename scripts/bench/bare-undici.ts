/**
 * The reference for "the price of phases, histograms and buckets": a bare open-model loop on one
 * thread, undici's Pool.request() fired on a setTimeout/setImmediate schedule at the target rate
 * (linear ramp, then hold), counting completions and latencies of the steady window. Nothing else:
 * no VUs, no drops (a request waits in undici's queue when every connection is busy), no buckets.
 *   tsx scripts/bench/bare-undici.ts --url http://127.0.0.1:18080/ --rate 10000 [--ramp 1 --hold 12 --settle 2 --connections 64 --schedule timer|immediate]
 * Prints one JSON line: { rate, achievedPerSec, completed, errors, p50Ms, p99Ms, cpuPer10k, ... }.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    rate: { type: 'string' },
    ramp: { type: 'string', default: '1' },
    hold: { type: 'string', default: '12' },
    settle: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    /** timer: wake at most every ms and fire every arrival due (batches); immediate: spin on setImmediate when the next arrival is < 0.25 ms away (plateau's engine's policy). */
    schedule: { type: 'string', default: 'timer' },
  },
});
const url = new URL(values.url ?? 'http://127.0.0.1:18080/');
if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '[::1]')
  throw new Error('bare-undici sends only to loopback');
const rate = Number(values.rate);
const rampS = Number(values.ramp);
const holdS = Number(values.hold);
const settleS = Number(values.settle);
if (!(rate > 0) || !(holdS > settleS)) throw new Error('need --rate > 0 and --hold > --settle');

const pool = new Pool(url.origin, { connections: Number(values.connections), pipelining: 1, keepAliveTimeout: 60_000 });
/** Arrival n (1-based) at this many seconds: linear ramp 0 -> rate over rampS, then constant. */
const rampN = (rate * rampS) / 2;
const arrivalS = (n: number): number => (n <= rampN ? Math.sqrt((2 * rampS * n) / rate) : rampS + (n - rampN) / rate);
const endS = rampS + holdS;
const spin = values.schedule === 'immediate';
const steadyFromS = rampS + settleS;

const lat = new Float64Array(Math.ceil(rate * (holdS - settleS) * 1.05) + 1000);
let nLat = 0;
let steadyDone = 0;
let errors = 0;
let inFlight = 0;
let cpuAt: NodeJS.CpuUsage | null = null;
let cpuEnd: NodeJS.CpuUsage | null = null;
let maxLagMs = 0;

const t0 = performance.now();
let n = 1;
let next = arrivalS(n);
let resolveAll!: () => void;
const allDone = new Promise<void>((r) => (resolveAll = r));
let firing = true;

function fire(intendedS: number): void {
  inFlight++;
  const started = performance.now();
  const inSteady = intendedS >= steadyFromS && intendedS < endS;
  pool
    .request({ path: url.pathname, method: 'GET' })
    .then(
      async (res) => {
        await res.body.dump();
        const doneMs = performance.now();
        if (res.statusCode !== 200) errors++;
        else if (inSteady) {
          if (nLat < lat.length) lat[nLat++] = doneMs - started;
        }
        const doneS = (doneMs - t0) / 1000;
        if (doneS >= steadyFromS && doneS < endS && res.statusCode === 200) steadyDone++;
      },
      () => {
        errors++;
      },
    )
    .finally(() => {
      inFlight--;
      if (!firing && inFlight === 0) resolveAll();
    });
}

function loop(): void {
  const nowMs = performance.now();
  const nowS = (nowMs - t0) / 1000;
  if (cpuAt === null && nowS >= steadyFromS) cpuAt = process.cpuUsage();
  while (next <= nowS && next < endS) {
    maxLagMs = Math.max(maxLagMs, (nowS - next) * 1000);
    fire(next);
    next = arrivalS(++n);
  }
  if (next >= endS) {
    // Stop firing; wait for the schedule's end (steady completions keep counting), then drain.
    const left = (endS - nowS) * 1000;
    setTimeout(
      () => {
        cpuEnd = process.cpuUsage(cpuAt ?? undefined);
        firing = false;
        if (inFlight === 0) resolveAll();
      },
      Math.max(0, left),
    );
    return;
  }
  const waitMs = (next - nowS) * 1000;
  if (spin && waitMs < 0.25) setImmediate(loop);
  else setTimeout(loop, Math.max(1, Math.floor(waitMs)));
}
loop();

await Promise.race([allDone, new Promise((r) => setTimeout(r, 5000 + (endS * 1000 - (performance.now() - t0))))]);
await pool.destroy();

const sorted = lat.subarray(0, nLat).sort();
const q = (p: number) => (nLat ? sorted[Math.min(nLat - 1, Math.floor((p / 100) * nLat))] : null);
const windowS = endS - steadyFromS;
const cpu = cpuEnd as NodeJS.CpuUsage | null;
const cpuS = cpu ? (cpu.user + cpu.system) / 1e6 : null;
const achievedPerSec = steadyDone / windowS;
process.stdout.write(
  JSON.stringify({
    tool: 'bare-undici',
    rate,
    schedule: spin ? 'immediate' : 'timer',
    windowS,
    completed: steadyDone,
    achievedPerSec,
    errors,
    dispatched: n - 1,
    unfinished: inFlight,
    p50Ms: q(50),
    p99Ms: q(99),
    maxLagMs,
    cpuS,
    cpuPer10k: cpuS !== null && steadyDone > 0 ? (cpuS / steadyDone) * 1e4 : null,
  }) + '\n',
);
process.exit(0);
