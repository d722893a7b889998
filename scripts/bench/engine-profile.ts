/**
 * One thread, no CLI: plateau's native engine (startNative + VuPool + a scenario, the exact
 * per-request path of a run) or a bare undici dispatch() loop, at a fixed rate against nginx for a
 * few seconds, printing one JSON line: achieved/s and CPU-s per 10k requests. For A/B work on the
 * hot path (run it under --cpu-prof); the peer comparison proper is `npm run bench`, whose mix case
 * (scripts/bench/mix-case.ts) runs this file in alternating rounds.
 *   node --import tsx scripts/bench/engine-profile.ts --mode plateau|bare --rate 8000 --seconds 10 [--client socket|undici]
 *     [--scenario scripts/bench/mix-scenario.ts]   (default: the default scenario, GET on the target's URL)
 *     [--traffic one|mix]   (--mode bare: one GET per arrival, or the bench mix's very requests)
 *
 * Requests are counted, not arrivals: a transaction's two requests are two (BucketRecord.requests).
 * cpuPer10k is the process's CPU from before the scenario is loaded to after the pool is closed,
 * the window this file always measured (so it compares with an earlier commit's figure);
 * loadCpuPer10k covers only the schedule (startNative to done), leaving out the scenario's load
 * (a module's bundling) and the pool's close; loadUserPer10k and loadSysPer10k split it, and
 * voluntary/involuntarySwitchesPerRequest count the process's context switches over the same window.
 */
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { findTools } from './ensure-tools.ts';
import { startNginx } from './nginx.ts';
import { startNative } from '../../harness/engine/native.ts';
import { VuPool } from '../../harness/engine/vu-pool.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { scenarioRequests } from '../../harness/scenario/requests.ts';
import { entryOf, mixOrder } from '../../harness/scenario/mix-order.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'plateau' },
    rate: { type: 'string', default: '8000' },
    seconds: { type: 'string', default: '10' },
    client: { type: 'string', default: 'socket' },
    vus: { type: 'string', default: '64' },
    port: { type: 'string', default: '18091' },
    scenario: { type: 'string' },
    traffic: { type: 'string', default: 'one' },
  },
});
if (values.mode !== 'plateau' && values.mode !== 'bare') {
  console.error(`engine-profile: --mode ${values.mode} is neither plateau nor bare; pass one of them`);
  process.exit(2);
}
if (values.traffic !== 'one' && values.traffic !== 'mix') {
  console.error(`engine-profile: --traffic ${values.traffic} is neither one nor mix; pass one of them`);
  process.exit(2);
}
if (values.traffic === 'mix' && values.mode !== 'bare') {
  console.error(
    "engine-profile: --traffic mix is the bare loop's; the engine takes its mix as --scenario scripts/bench/mix-scenario.ts",
  );
  process.exit(2);
}
if (values.scenario !== undefined && values.mode !== 'plateau') {
  console.error('engine-profile: --scenario runs on the native engine only; drop --mode bare');
  process.exit(2);
}
const scenarioPath = values.scenario === undefined ? null : path.resolve(values.scenario);
if (scenarioPath !== null && !fs.existsSync(scenarioPath)) {
  console.error(`engine-profile: --scenario ${scenarioPath} does not exist; pass the path of a scenario module`);
  process.exit(2);
}
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const vus = Number(values.vus);
for (const [flag, v] of [
  ['--rate', rate],
  ['--seconds', seconds],
  ['--vus', vus],
] as const) {
  if (!(v > 0) || (flag === '--vus' && !Number.isInteger(v))) {
    console.error(`engine-profile: ${flag} ${values[flag.slice(2) as 'rate']} is not a positive number; pass one`);
    process.exit(2);
  }
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-eprof-'));
const nginxBin = findTools().nginx;
if (!nginxBin) {
  console.error(
    'engine-profile: nginx is missing; install it (apt-get install nginx-light, or run `npm run bench` once)',
  );
  process.exit(2);
}
const nginx = await startNginx(nginxBin, dir, Number(values.port));
const url = nginx.url;
const origin = new URL(url).origin;

interface Counts {
  /** Arrivals completed (a transaction is one). */
  arrivals: number;
  /** Requests completed, every request of every arrival. */
  requests: number;
  /** Arrivals that succeeded (every request and check passed). */
  ok: number;
  dropped: number;
  /** CPU (µs, user + system) of the schedule alone: startNative to done. */
  loadCpuUs: number;
  /** The same window's user and system CPU (µs) and context switches (process.resourceUsage). */
  loadUserUs: number;
  loadSysUs: number;
  voluntarySwitches: number;
  involuntarySwitches: number;
}

const noCounts = (): Counts => ({
  arrivals: 0,
  requests: 0,
  ok: 0,
  dropped: 0,
  loadCpuUs: 0,
  loadUserUs: 0,
  loadSysUs: 0,
  voluntarySwitches: 0,
  involuntarySwitches: 0,
});

/** The schedule's CPU and context switches into n: the process's usage since u0. */
function usedSince(n: Counts, u0: NodeJS.ResourceUsage): void {
  const u1 = process.resourceUsage();
  n.loadUserUs = u1.userCPUTime - u0.userCPUTime;
  n.loadSysUs = u1.systemCPUTime - u0.systemCPUTime;
  n.loadCpuUs = n.loadUserUs + n.loadSysUs;
  n.voluntarySwitches = u1.voluntaryContextSwitches - u0.voluntaryContextSwitches;
  n.involuntarySwitches = u1.involuntaryContextSwitches - u0.involuntaryContextSwitches;
}

async function plateau(): Promise<Counts> {
  const { arrivals } = await scenarioRequests(scenarioPath, url, 'prof');
  const pool = new VuPool(
    origin,
    {
      timeoutMs: 10_000,
      client: values.client === 'undici' ? 'undici' : 'socket',
      keepHeaders: arrivals.keepHeaders,
    },
    vus,
    vus,
  );
  const n = noCounts();
  const u0 = process.resourceUsage();
  const run = startNative({
    schedule: new Schedule([{ fromPerSec: rate, toPerSec: rate, durationS: seconds }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    arrivals,
    seqOffset: 0,
    gracefulStopMs: 2000,
    sink: (b) => {
      n.arrivals += b.completed;
      n.requests += b.requests ?? b.completed;
      n.ok += b.ok;
      n.dropped += b.dropped;
    },
  });
  await run.done;
  usedSince(n, u0);
  await pool.close();
  return n;
}

/**
 * --traffic mix: the bench mix's traffic (scripts/bench/mix-scenario.ts) sent by the bare loop, with
 * no engine: per 10 arrivals 7 reads (GET /items/r<k>), 2 writes (POST /items with a JSON body and
 * its id, the body read and compared) and 1 transaction (POST /carts, its status checked, then POST
 * /carts/<id>/confirm on the same connection once the first is answered), each arrival the entry
 * the engine gives its number, with the same ids. The peer of the mix's ratio: what the same
 * traffic costs a client that does nothing else.
 */
const traffic = values.traffic;
/** The engine's own choice of entry by arrival number (smooth weighted round robin), for 70/20/10. */
const MIX_ORDER = mixOrder([70, 20, 10]);

async function bare(): Promise<Counts> {
  const clients = Array.from({ length: vus }, () => new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 }));
  const free = [...clients];
  const n = noCounts();
  let inflight = 0;
  const u0 = process.resourceUsage();
  const t0 = performance.now();
  let a = 1;
  /** One request on c; done(status, body) once answered (body: the text when keep, else ''). */
  const send = (
    c: Client,
    opts: { method: string; path: string; headers?: Record<string, string>; body?: string },
    keep: boolean,
    done: (status: number, body: string) => void,
  ) => {
    let status = 0;
    const chunks: Buffer[] = [];
    c.dispatch(
      opts as never,
      {
        onConnect() {},
        onHeaders(s: number) {
          status = s;
          return true;
        },
        onData(chunk: Buffer) {
          if (keep) chunks.push(chunk);
          return true;
        },
        onComplete() {
          n.requests++;
          done(status, keep ? Buffer.concat(chunks).toString('utf8') : '');
        },
        onError() {
          n.requests++;
          done(0, '');
        },
      } as never,
    );
  };
  const end = (c: Client, ok: boolean) => {
    n.arrivals++;
    if (ok) n.ok++;
    inflight--;
    free.push(c);
  };
  await new Promise<void>((resolve) => {
    const fire = (seq: number) => {
      const c = free.pop();
      if (!c) {
        n.dropped++;
        return;
      }
      inflight++;
      if (traffic !== 'mix') return send(c, { method: 'GET', path: '/' }, false, (s) => end(c, s === 200));
      const entry = entryOf(MIX_ORDER, seq);
      if (entry === 0)
        return send(c, { method: 'GET', path: `/items/r${(Math.imul(seq, 2654435761) >>> 0) % 1000}` }, false, (s) =>
          end(c, s === 200),
        );
      const id = `prof-${seq}`;
      if (entry === 1) {
        const body = JSON.stringify({ id, qty: 1 });
        const headers = { 'content-type': 'application/json' };
        return send(c, { method: 'POST', path: '/items', headers, body }, true, (s, b) =>
          end(c, s === 200 && b === 'ok\n'),
        );
      }
      const headers = { 'content-type': 'application/json' };
      send(c, { method: 'POST', path: '/carts', headers, body: `{"id":"${id}"}` }, false, (s) => {
        if (s !== 200) return end(c, false);
        send(c, { method: 'POST', path: `/carts/${id}/confirm` }, false, (s2) => end(c, s2 === 200));
      });
    };
    const loop = () => {
      const nowS = (performance.now() - t0) / 1000;
      while (a / rate <= nowS && a / rate < seconds) {
        fire(a);
        a++;
      }
      if (a / rate >= seconds) {
        const w = () => (inflight ? setTimeout(w, 5) : resolve());
        w();
        return;
      }
      setTimeout(loop, Math.max(1, Math.floor((a / rate - nowS) * 1000)));
    };
    loop();
  });
  usedSince(n, u0);
  await Promise.all(clients.map((c) => c.destroy()));
  if (n.dropped) console.error(`bare: ${n.dropped} dropped`);
  return n;
}

try {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const n = values.mode === 'bare' ? await bare() : await plateau();
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  const per10k = (us: number) =>
    Number.isFinite(us) && n.requests > 0 ? +((us / 1e6 / n.requests) * 1e4).toFixed(4) : null;
  const perRequest = (count: number) =>
    Number.isFinite(count) && n.requests > 0 ? +(count / n.requests).toFixed(4) : null;
  console.log(
    JSON.stringify({
      mode: values.mode,
      scenario: scenarioPath,
      ...(values.mode === 'bare' ? { traffic } : {}),
      rate,
      seconds,
      // completed counts requests, as it did when every arrival was one request
      completed: n.requests,
      arrivals: n.arrivals,
      ok: n.ok,
      dropped: n.dropped,
      achievedPerSec: Math.round(n.arrivals / s),
      requestsPerSec: Math.round(n.requests / s),
      cpuPer10k: per10k(c.user + c.system),
      userPer10k: per10k(c.user),
      sysPer10k: per10k(c.system),
      loadCpuPer10k: per10k(n.loadCpuUs),
      // the schedule's split: the engine's and scenario's own code against the kernel's work
      // (socket writes and reads, wake-ups), and the switches that come with each wake-up
      loadUserPer10k: per10k(n.loadUserUs),
      loadSysPer10k: per10k(n.loadSysUs),
      voluntarySwitchesPerRequest: perRequest(n.voluntarySwitches),
      involuntarySwitchesPerRequest: perRequest(n.involuntarySwitches),
    }),
  );
} finally {
  await nginx.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
