/**
 * One thread, no CLI: plateau's native engine (startNative + VuPool + the default scenario, the
 * exact per-request path of a run) or a bare undici dispatch() loop, at a fixed rate against nginx
 * for a few seconds, printing achieved/s and CPU-s per 10k requests. For A/B work on the hot path
 * (run it under --cpu-prof); the peer comparison proper is `npm run bench`.
 *   node --import tsx scripts/bench/engine-profile.ts --mode plateau|bare --rate 8000 --seconds 10 [--client socket|undici]
 */
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { startNginx } from './nginx.ts';
import { startNative } from '../../harness/engine/native.ts';
import { VuPool } from '../../harness/engine/vu-pool.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { scenarioRequests } from '../../harness/scenario/requests.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'plateau' },
    rate: { type: 'string', default: '8000' },
    seconds: { type: 'string', default: '10' },
    client: { type: 'string', default: 'socket' },
    vus: { type: 'string', default: '64' },
    port: { type: 'string', default: '18091' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const vus = Number(values.vus);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-eprof-'));
const nginx = await startNginx('/usr/sbin/nginx', dir, Number(values.port));
const url = nginx.url;
const origin = new URL(url).origin;

async function plateau(): Promise<number> {
  const { arrivals } = await scenarioRequests(null, url, 'prof');
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
  let completed = 0;
  const run = startNative({
    schedule: new Schedule([{ fromPerSec: rate, toPerSec: rate, durationS: seconds }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    arrivals,
    seqOffset: 0,
    gracefulStopMs: 2000,
    sink: (b) => {
      completed += b.completed;
    },
  });
  await run.done;
  await pool.close();
  return completed;
}

async function bare(): Promise<number> {
  const clients = Array.from({ length: vus }, () => new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 }));
  const free = [...clients];
  let completed = 0;
  let dropped = 0;
  let inflight = 0;
  const t0 = performance.now();
  let n = 1;
  await new Promise<void>((resolve) => {
    const fire = () => {
      const c = free.pop();
      if (!c) {
        dropped++;
        return;
      }
      inflight++;
      c.dispatch({ method: 'GET', path: '/' }, {
        onConnect() {},
        onHeaders() {
          return true;
        },
        onData() {
          return true;
        },
        onComplete() {
          completed++;
          inflight--;
          free.push(c);
        },
        onError() {
          inflight--;
          free.push(c);
        },
      } as never);
    };
    const loop = () => {
      const nowS = (performance.now() - t0) / 1000;
      while (n / rate <= nowS && n / rate < seconds) {
        fire();
        n++;
      }
      if (n / rate >= seconds) {
        const w = () => (inflight ? setTimeout(w, 5) : resolve());
        w();
        return;
      }
      setTimeout(loop, Math.max(1, Math.floor((n / rate - nowS) * 1000)));
    };
    loop();
  });
  await Promise.all(clients.map((c) => c.destroy()));
  if (dropped) console.error(`bare: ${dropped} dropped`);
  return completed;
}

try {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const done = values.mode === 'bare' ? await bare() : await plateau();
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  console.log(
    JSON.stringify({
      mode: values.mode,
      rate,
      completed: done,
      achievedPerSec: Math.round(done / s),
      cpuPer10k: +(((c.user + c.system) / 1e6 / done) * 1e4).toFixed(3),
      userPer10k: +((c.user / 1e6 / done) * 1e4).toFixed(3),
      sysPer10k: +((c.system / 1e6 / done) * 1e4).toFixed(3),
    }),
  );
} finally {
  await nginx.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
