/**
 * The native engine on worker threads: each worker runs an execution segment (a stripe of the
 * global arrival sequence) with its own VUs; their one-second buckets arrive here and go to the
 * sink as they are (the analysis merges sources exactly). The main thread keeps only the
 * pipeline's work: judging, probes, the store.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { EngineRun } from './native.ts';
import { NATIVE_CAPABILITIES, type LegOptions, type LoadEngine } from './load-engine.ts';
import type { Preconnected } from './vu-pool.ts';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.ts';
import { lateText } from '../../analysis/scenario-unhandled.ts';
import { EXIT_CALLED_FIX, faultError } from './thrown-by.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { prepareEntry } from '../../bin/bundle-cache.mjs';

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

interface Slot {
  worker: Worker;
  onMessage: ((m: FromWorker) => void) | null;
  /** The thread has exited (crashed or closed): nothing to wait for. */
  exited: boolean;
  /** Why the thread ended during the run (a crash, or an exit nobody asked for): every later wait on it fails with it. */
  gone: Extract<FromWorker, { type: 'error' }> | null;
  /** close() asked it to end: its exit is no failure. */
  closing: boolean;
}

export class WorkerEngine implements LoadEngine {
  readonly capabilities = NATIVE_CAPABILITIES;
  readonly whyNot = {};
  private max: number;
  /** Workers started; shrink() closes some, and `instances` says how many still run. */
  private readonly started: number;

  private constructor(
    private slots: Slot[],
    maxVUs: number,
    private readonly httpClient: string,
  ) {
    this.started = slots.length;
    this.max = maxVUs;
  }

  get label(): string {
    return `${this.name}, ${this.httpClient} HTTP client`;
  }

  get instances(): number {
    return this.slots.length;
  }
  get name(): string {
    return this.slots.length === this.started
      ? `native (${this.started} worker threads)`
      : `native (${this.slots.length} of ${this.started} worker threads)`;
  }

  /** `env` becomes the workers' process.env (secrets stay in memory, as in the main thread). */
  static async create(
    count: number,
    init: Omit<WorkerInit, 'index' | 'count'>,
    env: NodeJS.ProcessEnv,
    /** A progress line: the first error a worker's scenario code left while no engine instance listened. */
    note: (line: string) => void = () => undefined,
  ): Promise<WorkerEngine> {
    let late = 0;
    const onLate = (message: string) => {
      if (late++ === 0) note(lateText(message));
    };
    // worker-entry.mjs starts this module: built once here, not by every worker at once after an edit
    await prepareEntry('harness/engine/worker-main.ts');
    const spawned = await Promise.allSettled(
      Array.from({ length: count }, (_, index) => spawn({ ...init, index, count }, env, onLate)),
    );
    const failed = spawned.find((p): p is PromiseRejectedResult => p.status === 'rejected');
    if (failed) {
      // the workers that did start would keep the process alive
      await closeSlots(spawned.flatMap((p) => (p.status === 'fulfilled' ? [p.value] : [])));
      throw failed.reason;
    }
    return new WorkerEngine(
      spawned.map((p) => (p as PromiseFulfilledResult<Slot>).value),
      init.maxVUs,
      init.http.client,
    );
  }

  get maxVUs(): number {
    return this.max;
  }
  set maxVUs(n: number) {
    this.max = n;
    this.broadcast({ type: 'maxVUs', maxVUs: n });
  }

  /** Each worker allocates its share of `n` VUs (within its share of maxVUs), ready for preconnect(). */
  reserve(n: number): void {
    this.broadcast({ type: 'reserve', vus: n });
  }

  start(o: LegOptions): EngineRun {
    const t0Ms = o.t0Ms ?? performance.now();
    const offsetS = o.offsetS ?? 0;
    const results = this.slots.map(
      (slot) =>
        new Promise<{ dispatched: number; lastSeq: number }>((resolve, reject) => {
          if (slot.gone) return reject(workerError(slot.gone));
          slot.onMessage = (m) => {
            if (m.type === 'bucket') o.sink(m.record);
            else if (m.type === 'done') {
              slot.onMessage = null;
              resolve(m);
            } else if (m.type === 'error') reject(workerError(m));
          };
        }),
    );
    this.broadcast({
      type: 'run',
      segments: o.segments,
      phase: o.phase,
      seqOffset: o.seqOffset,
      t0EpochMs: performance.timeOrigin + t0Ms,
      offsetS,
      gracefulStopMs: o.gracefulStopMs,
    });
    const done = Promise.all(results).then((rs) => ({
      dispatched: rs.reduce((a, r) => a + r.dispatched, 0),
      lastSeq: Math.max(...rs.map((r) => r.lastSeq)),
    }));
    return {
      stop: (graceMs) => this.broadcast({ type: 'stop', graceMs }),
      done,
      elapsedS: () => (performance.now() - t0Ms) / 1000 - offsetS,
    };
  }

  async preconnect(): Promise<Preconnected> {
    const each = await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<Preconnected>((resolve, reject) => {
            if (slot.gone) return reject(workerError(slot.gone));
            slot.onMessage = (m) => {
              if (m.type === 'preconnected') {
                slot.onMessage = null;
                resolve(m);
              } else if (m.type === 'error') reject(workerError(m));
            };
            slot.worker.postMessage({ type: 'preconnect' } satisfies ToWorker);
          }),
      ),
    );
    return { ready: each.reduce((a, c) => a + c.ready, 0), failed: each.reduce((a, c) => a + c.failed, 0) };
  }

  /**
   * Runs the next legs on the first `count` workers only (between legs, never during one): the
   * others close with their VUs, and those that stay stripe by the new count and take their
   * share of the preallocated and maximum VUs (open them with preconnect()).
   */
  async shrink(count: number): Promise<void> {
    if (count < 1 || count >= this.slots.length) return;
    const leaving = this.slots.slice(count);
    this.slots = this.slots.slice(0, count);
    this.broadcast({ type: 'resize', count });
    await closeSlots(leaving);
  }

  private broadcast(m: ToWorker): void {
    for (const s of this.slots) s.worker.postMessage(m);
  }

  close(): Promise<void> {
    return closeSlots(this.slots);
  }
}

async function closeSlots(slots: Slot[]): Promise<void> {
  await Promise.all(
    slots.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.exited) {
            resolve();
            return;
          }
          s.closing = true;
          const timer = setTimeout(() => void s.worker.terminate().then(() => resolve()), 5000);
          s.onMessage = (m) => {
            if (m.type === 'closed') {
              clearTimeout(timer);
              resolve();
            }
          };
          s.worker.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          s.worker.postMessage({ type: 'close' } satisfies ToWorker);
        }),
    ),
  );
}

function spawn(init: WorkerInit, env: NodeJS.ProcessEnv, onLate: (message: string) => void): Promise<Slot> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, { workerData: init, env: { ...env } });
    const slot: Slot = { worker, onMessage: null, exited: false, gone: null, closing: false };
    let started = false;
    const fail = (m: Extract<FromWorker, { type: 'error' }>) => {
      if (slot.gone) return;
      slot.gone = m;
      slot.onMessage?.(m);
    };
    worker.once('exit', (code) => {
      slot.exited = true;
      // process.exit() in the scenario's code (or a package's) ends the thread with no error: a
      // leg waiting on it would wait for ever, and with every worker gone the process ended, exit 0
      // a start-failed message sent before the thread ended says it better: it comes first, a turn later at most
      if (!started) setImmediate(() => reject(startError(init.index, `it exited (code ${code}) before it was ready`)));
      else if (!slot.closing) fail(exitMessage(init.index, code));
    });
    worker.on('error', (err) => {
      if (!started) setImmediate(() => reject(startError(init.index, err.message)));
      else fail(crashMessage(init.index, err));
    });
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') {
        started = true;
        resolve(slot);
      } else if (m.type === 'start-failed') reject(new PlateauError(m.message, m.hint, m.code, m.exitCode));
      else if (m.type === 'late') onLate(m.message);
      else slot.onMessage?.(m);
    });
  });
}

/** An engine instance's failure in a worker, as it was: a PlateauError with its fix, else an Error with its stack. */
function workerError(m: Extract<FromWorker, { type: 'error' }>): Error {
  const e = m.said ? new PlateauError(m.message, m.said.hint, m.said.code, m.said.exitCode) : new Error(m.message);
  if (m.stack) e.stack = m.stack;
  return e;
}

/** A worker that died of an uncaught exception: plateau's crash, or one of code of neither said as that (faultError). */
function crashMessage(index: number, err: Error): Extract<FromWorker, { type: 'error' }> {
  const said = faultError(err);
  if (said instanceof PlateauError)
    return {
      type: 'error',
      message: said.message,
      stack: err.stack,
      said: { hint: said.hint, code: said.code, exitCode: said.exitCode },
    };
  return { type: 'error', message: `engine worker ${index} crashed: ${err.message}`, stack: err.stack };
}

function startError(index: number, why: string): PlateauError {
  return new PlateauError(
    `engine worker ${index} failed to start: ${why}`,
    'check the scenario module loads on its own (npx tsx <scenario>)',
    'worker-start',
    EXIT.stage,
  );
}

/** A worker that ended with no error while a run needed it: process.exit() in code of the scenario's. */
function exitMessage(index: number, code: number): Extract<FromWorker, { type: 'error' }> {
  return {
    type: 'error',
    message: `engine worker ${index} exited (code ${code}) during the run, with no error: the scenario's code (or a package it uses) called process.exit()`,
    said: {
      hint: EXIT_CALLED_FIX,
      code: 'worker-exited',
      exitCode: EXIT.stage,
    },
  };
}
