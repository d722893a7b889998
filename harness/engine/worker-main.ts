/**
 * One engine worker: its own VUs, its own undici clients, its own stripe of the global arrival
 * sequence. Buckets go to the main thread once a second; nothing per request crosses threads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.ts';
import { VuPool } from './vu-pool.ts';
import { startNative, type EngineRun } from './native.ts';
import { catchUnhandled } from './unhandled.ts';
import { PlateauError } from '../errors.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { scenarioRequests } from '../scenario/requests.ts';

const init = workerData as WorkerInit;
const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);
/** Workers running the engine: init.count, until the engine is resized to fewer. */
let count = init.count;
/** VUs allowed over all workers (raised for a rerun). */
let maxVUs = init.maxVUs;
/** VUs allocated ahead of the load over all workers (re-sized after the warmup). */
let preAllocatedVUs = init.preAllocatedVUs;
/** This worker's part of a total split over the workers: floor, plus one for the first (total mod count). */
const share = (total: number) => Math.floor(total / count) + (init.index < total % count ? 1 : 0);
/** At least one VU each: a worker with none would drop its whole stripe while VUs elsewhere idle. */
const maxShare = (total: number) => Math.max(1, share(total));

const pool = new VuPool(init.origin, init.http, share(init.preAllocatedVUs), maxShare(maxVUs));
const { arrivals } = await scenarioRequests(init.scenarioPath, init.targetUrl, init.runId, {
  idKey: init.idKey,
  maxBodyBytes: init.maxBodyBytes,
  transactionTimeoutMs: init.transactionTimeoutMs,
}).catch((e: unknown) => {
  // plateau's words for what failed (a data file gone since preflight read it), with its own fix
  if (e instanceof PlateauError)
    post({ type: 'start-failed', message: e.message, hint: e.hint, code: e.code, exitCode: e.exitCode });
  throw e;
});
let current: EngineRun | null = null;
// while no engine instance of this thread listens (between legs, after the last), an error the
// scenario's code left is said by the main thread; one that may be plateau's ends the thread, as before
catchUnhandled(
  (message) => post({ type: 'late', message }),
  (err) => {
    throw err;
  },
  { fallback: true },
);

port.on('message', (m: ToWorker) => {
  if (m.type === 'run') {
    current = startNative({
      schedule: new Schedule(m.segments),
      phase: m.phase,
      source: `native/${init.index}`,
      pool,
      arrivals,
      seqOffset: m.seqOffset,
      t0Ms: m.t0EpochMs - performance.timeOrigin,
      offsetS: m.offsetS,
      gracefulStopMs: m.gracefulStopMs,
      stripe: { index: init.index, count },
      sink: (record) => post({ type: 'bucket', record }),
    });
    current.done.then(
      (d) => {
        current = null;
        post({ type: 'done', ...d });
      },
      (e: Error) =>
        post({
          type: 'error',
          message: e.message,
          stack: e.stack,
          ...(e instanceof PlateauError ? { said: { hint: e.hint, code: e.code, exitCode: e.exitCode } } : {}),
        }),
    );
  } else if (m.type === 'stop') {
    current?.stop(m.graceMs);
  } else if (m.type === 'maxVUs') {
    maxVUs = m.maxVUs;
    pool.max = maxShare(maxVUs);
  } else if (m.type === 'reserve') {
    preAllocatedVUs = m.vus;
    pool.reserve(share(preAllocatedVUs));
  } else if (m.type === 'resize') {
    // the peers that left took their VUs: this worker's stripe and share grow
    count = m.count;
    pool.max = maxShare(maxVUs);
    pool.reserve(share(preAllocatedVUs));
  } else if (m.type === 'preconnect') {
    void pool.preconnect().then((c) => post({ type: 'preconnected', ...c }));
  } else if (m.type === 'close') {
    // a leg still running (the run ended by an error elsewhere) stops sending first
    current?.stop(0);
    void pool.close().then(() => {
      post({ type: 'closed' });
      port.close();
    });
  }
});
post({ type: 'ready' });
