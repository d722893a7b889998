/**
 * The native engine: walks a Schedule and dispatches each arrival at its due time to a free VU.
 * It never waits for a VU (an arrival with none free is dropped and counted) and it measures
 * itself: scheduler lag (actual minus intended start) per arrival and event-loop delay per second.
 */
import type { BucketRecord } from '../../analysis/types.ts';
import { realClock, type Clock, type Timer } from '../clock.ts';
import { HostSampler } from './host-sampler.ts';
import { BucketRecorder } from './recorder.ts';
import { catchUnhandled } from './unhandled.ts';
import { faultError } from './thrown-by.ts';
import type { Schedule } from '../../analysis/schedule.ts';
import type { PreparedRequest, SendDone, VuConnection } from './vu-connection.ts';
import type { VuPool } from './vu-pool.ts';
import type { Arrivals, RequestRun } from '../scenario/arrivals.ts';
import { Transaction, type TransactionHost } from './transaction.ts';
import { TurnEndPass } from './deadline.ts';
import { firstOfStripe, turnBlock, type Stripe } from './stripes.ts';

export interface EngineRunOptions {
  schedule: Schedule;
  phase: string;
  source: string;
  pool: VuPool;
  /**
   * The scenario: the entry of each global arrival number (one request, or a transaction run on
   * the arrival's VU). Building may throw: that arrival fails (kind other), never the run.
   */
  arrivals: Arrivals;
  /** First global sequence number minus one: warmup and steps never reuse a seq. */
  seqOffset: number;
  /** clock.now() of the phase's t = 0 (default: now); buckets count seconds from it. */
  t0Ms?: number;
  /** Phase time (s) at which this run's schedule starts (a later leg of the steps phase). */
  offsetS?: number;
  /**
   * Execution segment: this instance dispatches only its stripe of the leg's arrivals (stripes.ts:
   * every count-th, turning where a mix's period would put an entry on one instance); the others
   * belong to its peers.
   */
  stripe?: Stripe;
  /** How long in-flight requests may run on once the schedule has ended. */
  gracefulStopMs: number;
  sink(r: BucketRecord): void;
  /** Time and timers (default: the machine's); a simulated clock drives the schedule in tests. */
  clock?: Clock;
}

export interface EngineRun {
  /** Stops dispatching at once; in-flight requests get up to graceMs to finish. */
  stop(graceMs: number): void;
  /** Resolves when the schedule has ended (or stop was called) and in-flight work is done. */
  done: Promise<{ dispatched: number; lastSeq: number }>;
  /** Seconds since this run's t = 0. */
  elapsedS(): number;
}

export function startNative(o: EngineRunOptions): EngineRun {
  const clk = o.clock ?? realClock;
  const offsetS = o.offsetS ?? 0;
  const phaseT0Ms = o.t0Ms ?? clk.now();
  /** The schedule's own zero: offsetS into the phase. */
  const t0Ms = phaseT0Ms + offsetS * 1000;
  const stripe = o.stripe ?? { index: 0, count: 1 };
  // The machine's counters are one for the whole process: the first instance samples them.
  const named = o.arrivals.byName;
  const rec = new BucketRecorder(
    o.phase,
    o.source,
    phaseT0Ms,
    o.sink,
    Math.floor(offsetS),
    stripe.index === 0 ? HostSampler.ofThisProcess() : null,
    named,
  );
  // until finish(): an error the scenario's code left unhandled is counted, not the thread's end; an
  // exception that may be plateau's own ends this instance, done rejecting with it (decision 074)
  let fault: { err: unknown } | null = null;
  const releaseUnhandled = catchUnhandled(
    (message) => rec.unhandled(clk.now(), message),
    (err) => {
      fault ??= { err: faultError(err) };
      stop(0);
    },
  );
  const single = o.arrivals.entries.length === 1 ? o.arrivals.entries[0] : null;
  const singleCheck = single?.kind === 'request' ? single.check : () => null;
  /** Arrivals of the leg in a block (stripes.ts): 0 when this instance sends every count-th. */
  const block = turnBlock(o.arrivals.period, stripe.count);
  /** The leg's number of this instance's next arrival (its global number is seqOffset + n). */
  let n = firstOfStripe(1, o.seqOffset, stripe, block);
  let nextS = o.schedule.arrivalS(n);
  let stopped = false;
  let timer: Timer | null = null;
  let resolveDone!: (v: { dispatched: number; lastSeq: number }) => void;
  let rejectDone!: (err: unknown) => void;
  const done = new Promise<{ dispatched: number; lastSeq: number }>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  /** Transactions running, for their deadline (http.transactionTimeoutMs), checked as the ticker runs. */
  const live = new Set<Transaction>();
  /** Fails the transactions past their deadline at nowMs (kind timeout). */
  const expireTransactions = (nowMs: number) => {
    for (const t of live) if (t.overdue(nowMs)) t.expire();
  };
  const expiryPass = new TurnEndPass(expireTransactions);
  // The ticker rolls seconds on a quiet run; like any roll, after a stall it first dispatches the
  // arrivals due (rec.beforeRoll below), so they count in their second, with their lag, before it
  // is emitted and judged (docs/decisions/027). It also fails the transactions past their deadline,
  // judged by its own time at the end of its turn, once the I/O that was waiting has been read: after
  // a stall of this thread, an answer that ended a transaction in time is not its timeout (decision 041).
  const ticker = clk.setInterval(() => {
    const nowMs = clk.now();
    if (live.size > 0) expiryPass.schedule(nowMs);
    rec.tick(nowMs);
  }, 200);
  let own = 0;

  const fire = (intendedS: number, nowMs: number) => {
    own++;
    const dueMs = t0Ms + intendedS * 1000;
    const lagMs = nowMs - dueMs;
    const vu = o.pool.acquire();
    if (!vu) {
      rec.drop(dueMs, lagMs, o.pool.refused === 'busy');
      return;
    }
    rec.vusActive = o.pool.active;
    rec.vusAllocated = o.pool.allocated;
    // in the second it was due (BucketRecord: iterations and drops where due), while that is open
    rec.arrival(dueMs, lagMs);
    const seq = o.seqOffset + n;
    const entry = single ?? o.arrivals.entryOf(seq);
    if (entry.kind === 'transaction') {
      const t = new Transaction(txHost, entry, vu, nowMs);
      live.add(t);
      void t.run(seq);
      return;
    }
    let req: PreparedRequest;
    try {
      req = entry.build(seq);
    } catch (err) {
      release(vu);
      rec.iterationError(nowMs, `scenario threw: ${o.arrivals.threw(err)}`, named ? entry.name : undefined);
      return;
    }
    if (named) {
      // the entry its request belongs to, for onNamedDone (the VU's job: no map per request)
      vu.job = entry;
      vu.send(req, onNamedDone);
    } else vu.send(req, onDone);
  };

  const release = (vu: VuConnection) => {
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    if (stopped && o.pool.active === 0) finish();
  };

  // A request is recorded before its VU is freed: recording may dispatch the arrivals due
  // (rec.beforeRoll), and one of them must not take this VU, whose outcome is still being read.

  /** One callback for every request of a one-entry run (no closure per request). */
  const onDone: SendDone = (vu, out) => {
    rec.complete(out.times.endMs, out, out.kind ? null : singleCheck(out), undefined, singleCheck);
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    if (stopped && o.pool.active === 0) finish();
  };

  /** A one-request entry's request of a mix: counted under its name. */
  const onNamedDone: SendDone = (vu, out) => {
    const entry = vu.job as RequestRun;
    rec.complete(out.times.endMs, out, out.kind ? null : entry.check(out), entry.name, entry.check);
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    if (stopped && o.pool.active === 0) finish();
  };

  const txHost: TransactionHost = {
    arrivals: o.arrivals,
    rec,
    now: () => clk.now(),
    release,
    borrow: () => {
      const vu = o.pool.acquire();
      if (vu !== null) rec.borrowed(o.pool.active, o.pool.allocated);
      return vu;
    },
    timeoutMs: o.arrivals.transactionTimeoutMs,
    ended: (t) => live.delete(t),
  };

  /** Within dispatchDue: a completion inside it (a request that failed at once) rolls no batch of its own. */
  let dispatching = false;
  /** Fires every arrival due by nowMs, in order. */
  const dispatchDue = (nowMs: number) => {
    dispatching = true;
    const nowS = (nowMs - t0Ms) / 1000;
    let first = true;
    try {
      // a stop from a sink inside fire() (a step judged as its second rolled) ends the batch there
      while (!stopped && nextS !== null && nextS <= nowS) {
        // each arrival's own start time: the lag of the last of a batch includes the building and
        // sending of those before it
        if (!first) nowMs = clk.now();
        first = false;
        fire(nextS, nowMs);
        n = block === 0 ? n + stripe.count : firstOfStripe(n + 1, o.seqOffset, stripe, block);
        nextS = o.schedule.arrivalS(n);
      }
    } finally {
      dispatching = false;
    }
  };
  // After a stall, the ticker or what ended during it can roll a second before the dispatch timer
  // runs: the arrivals due by then go out first, so they count in their own second.
  rec.beforeRoll = () => {
    if (dispatching || stopped || nextS === null) return;
    const nowMs = clk.now();
    if (t0Ms + nextS * 1000 <= nowMs) dispatchDue(nowMs);
  };

  const loop = () => {
    timer = null;
    if (stopped) return;
    const startMs = clk.now();
    dispatchDue(startMs);
    if (stopped) return;
    if (nextS === null) {
      // A stripe's last arrival can come seconds before the schedule ends (a low rate over many
      // workers): its seconds run on to the end, so every instance reports the last steady second.
      const endInMs = t0Ms + o.schedule.durationS * 1000 - clk.now();
      if (endInMs > 1) timer = clk.setTimeout(() => stop(o.gracefulStopMs), endInMs);
      else stop(o.gracefulStopMs);
      return;
    }
    // Sleep on a timer even when the next arrival is under a millisecond away: the due arrivals
    // are fired in a batch on the next tick (lag <= ~1 ms, measured per arrival), where spinning
    // on setImmediate would burn a core doing nothing (bench: 1.65 vs 0.61 CPU-s per 10k at 5k/s).
    const waitMs = t0Ms + nextS * 1000 - startMs;
    timer = clk.setTimeout(loop, Math.max(1, Math.floor(waitMs)));
  };

  let finished = false;
  let graceTimer: Timer | null = null;
  // The deadlines due when the grace's timer fires are counted before the engine stops counting,
  // judged as the sweep and the ticker judge theirs (TurnEndPass): by the time the timer fired, once
  // the I/O waiting has been read, so that an answer which came in time is not a timeout. After a
  // stall of this thread their own passes would come after this timer.
  const graceEnd = new TurnEndPass((atMs) => {
    o.pool.expireDue(atMs);
    expireTransactions(atMs);
    finish();
  });
  function finish() {
    if (finished) return;
    finished = true;
    clk.clear(graceTimer);
    clk.clear(ticker);
    expiryPass.cancel();
    graceEnd.cancel();
    // past the grace, with the deadline's ticker gone: a transaction still running would keep its VU
    for (const t of live) t.abandon();
    // a promise the last arrivals' code left rejects once the microtasks after them have run: the
    // second stays open for it, and the listener on, until the turn after (on the engine's clock)
    clk.setTimeout(() => {
      rec.close(clk.now());
      releaseUnhandled();
      if (fault) rejectDone(fault.err);
      // n is the next (undispatched) global index; the seqs used are below it.
      else resolveDone({ dispatched: own, lastSeq: o.seqOffset + n - 1 });
    }, 0);
  }

  function stop(graceMs: number) {
    if (!stopped) {
      stopped = true;
      clk.clear(timer);
    }
    // finish after the current call returns: stop may come from a sink inside fire() or a roll
    if (o.pool.active === 0 || graceMs <= 0) {
      queueMicrotask(finish);
      return;
    }
    clk.clear(graceTimer);
    graceEnd.cancel();
    graceTimer = clk.setTimeout(() => graceEnd.schedule(clk.now()), graceMs);
  }

  // A later leg may be created before its start second: wait for it, then dispatch.
  const startInMs = t0Ms - clk.now();
  if (startInMs > 1) timer = clk.setTimeout(loop, startInMs);
  else loop();
  return { stop, done, elapsedS: () => (clk.now() - t0Ms) / 1000 };
}
