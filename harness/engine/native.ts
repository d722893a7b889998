/**
 * The native engine: walks a Schedule and dispatches each arrival at its due time to a free VU.
 * It never waits for a VU (an arrival with none free is dropped and counted) and it measures
 * itself: scheduler lag (actual minus intended start) per arrival and event-loop delay per second.
 */
import type { BucketRecord } from '../../analysis/types.ts';
import { realClock, type Clock, type Timer } from '../clock.ts';
import { HostSampler } from './host-sampler.ts';
import { BucketRecorder } from './recorder.ts';
import type { Schedule } from '../../analysis/schedule.ts';
import type { PreparedRequest, SendDone, VuConnection } from './http.ts';
import type { VuPool } from './vu-pool.ts';
import type { Arrivals, Kept, RequestRun, TransactionRun } from '../scenario/requests.ts';
import type { Check, RequestSpec, SentResponse } from '../scenario/types.ts';
import type { ErrorKind } from '../../analysis/types.ts';

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
   * Execution segment: this instance dispatches only arrivals n with (n - 1) mod count = index
   * (a stripe of the global sequence, as k6 splits instances); the others belong to its peers.
   */
  stripe?: { index: number; count: number };
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

/** What failed an arrival of a transaction: its first failed request or check, or what run threw. */
interface Failure {
  kind: ErrorKind;
  status: number;
  message: string;
}

/** A transaction's sending: a request in flight on its VU, the last send, and how a failure is kept. */
interface SendState {
  /** Sends made and not yet ended (in flight, or waiting for the one in flight). */
  pending: number;
  /** The arrival has ended: a later send is refused (its VU may serve the next arrival). */
  ended: boolean;
  /** What its answers keep: what the transaction's code reads. */
  kept: Kept;
  last: Promise<SentResponse> | null;
  fail(f: Failure): void;
}

const SEND_AFTER_END = 'http.send after the transaction ended: await every send inside run(ctx, http)';

/** What http.send resolves to when the request was never sent (a refused name, a malformed request). */
function refusedResponse(error: string): SentResponse {
  return {
    status: 0,
    headers: {},
    body: '',
    json: () => {
      throw new Error(`no response: ${error}`);
    },
    ok: false,
    error,
  };
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
  const single = o.arrivals.entries.length === 1 ? o.arrivals.entries[0] : null;
  const singleCheck = single?.kind === 'request' ? single.check : () => null;
  /** The one-request entry each VU's request in flight belongs to, when names are recorded. */
  const inFlight = new Map<VuConnection, RequestRun>();
  /** The global index of this instance's next arrival: its stripe is index+1, index+1+count, ... */
  let n = stripe.index + 1;
  let nextS = o.schedule.arrivalS(n);
  let stopped = false;
  let timer: Timer | null = null;
  let resolveDone!: (v: { dispatched: number; lastSeq: number }) => void;
  const done = new Promise<{ dispatched: number; lastSeq: number }>((r) => (resolveDone = r));
  // The ticker rolls seconds on a quiet run, but never past an arrival still due: after a stall
  // (the process not scheduled), the arrivals due in a second are counted in it, with their lag,
  // before it is emitted and judged, not left out of it (docs/decisions/027).
  const ticker = clk.setInterval(() => {
    const now = clk.now();
    rec.tick(nextS === null || stopped ? now : Math.min(now, t0Ms + nextS * 1000));
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
      void transaction(entry, seq, vu, nowMs);
      return;
    }
    let req: PreparedRequest;
    try {
      req = entry.build(seq);
    } catch (err) {
      release(vu);
      rec.iterationError(nowMs, `scenario threw: ${(err as Error).message}`, named ? entry.name : undefined);
      return;
    }
    if (named) {
      inFlight.set(vu, entry);
      vu.send(req, onNamedDone);
    } else vu.send(req, onDone);
  };

  const release = (vu: VuConnection) => {
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    if (stopped && o.pool.active === 0) finish();
  };

  /** One callback for every request of a one-entry run (no closure per request). */
  const onDone: SendDone = (vu, out) => {
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    rec.complete(out.times.endMs, out, out.kind ? null : singleCheck(out));
    if (stopped && o.pool.active === 0) finish();
  };

  /** A one-request entry's request of a mix: counted under its name. */
  const onNamedDone: SendDone = (vu, out) => {
    const entry = inFlight.get(vu)!;
    inFlight.delete(vu);
    o.pool.release(vu);
    rec.vusActive = o.pool.active;
    rec.complete(out.times.endMs, out, out.kind ? null : entry.check(out), entry.name);
    if (stopped && o.pool.active === 0) finish();
  };

  /**
   * A transaction on its arrival's VU: its requests one after another (a send made while another
   * is in flight waits for it: a VU has one request at a time), then the arrival is counted.
   */
  const transaction = async (entry: TransactionRun, seq: number, vu: VuConnection, startMs: number) => {
    let failure: Failure | null = null;
    const fail = (f: Failure) => {
      failure ??= f;
    };
    // the usual await-each-send goes straight to the VU; one made while another is in flight waits for it
    const st: SendState = { pending: 0, last: null, fail, ended: false, kept: entry.kept };
    const http = {
      send: (name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> => {
        // a send after run returned (not awaited) would use a VU already given to the next arrival
        if (st.ended) {
          fail({ kind: 'other', status: 0, message: `${name}: ${SEND_AFTER_END}` });
          return Promise.resolve(refusedResponse(SEND_AFTER_END));
        }
        const p =
          st.pending > 0 ? st.last!.then(() => sendOn(vu, name, spec, check, st)) : sendOn(vu, name, spec, check, st);
        st.pending++;
        st.last = p;
        return p;
      },
    };
    try {
      await entry.run(seq, http);
    } catch (err) {
      fail({ kind: 'other', status: 0, message: `${entry.name} threw: ${(err as Error)?.message ?? String(err)}` });
    }
    // sends run left going (not awaited, or chained in a .then) end before the arrival does and
    // frees its VU (a send never rejects)
    while (st.pending > 0) await st.last;
    st.ended = true;
    const endMs = clk.now();
    rec.transaction(endMs, entry.name, endMs - startMs, failure);
    release(vu);
  };

  /** One request of a transaction: admitted by name, sent on the VU, recorded, resolved as the scenario sees it. */
  const sendOn = (
    vu: VuConnection,
    name: string,
    spec: RequestSpec,
    check: Check | undefined,
    st: SendState,
  ): Promise<SentResponse> =>
    new Promise((resolve) => {
      const refused = (message: string) => {
        st.pending--;
        st.fail({ kind: 'other', status: 0, message });
        resolve(refusedResponse(message));
      };
      const bad = o.arrivals.admit(name);
      if (bad) return refused(bad);
      let req: PreparedRequest;
      try {
        req = o.arrivals.prepare(spec, st.kept);
      } catch (err) {
        return refused(`scenario threw: ${(err as Error).message}`);
      }
      vu.send(req, (_vu, out) => {
        st.pending--;
        const checkFailure = out.kind ? null : o.arrivals.checkOf(check, out, st.kept);
        rec.sent(out.times.endMs, name, out, checkFailure);
        const kind: ErrorKind | undefined = out.kind ?? (checkFailure !== null ? 'check' : undefined);
        const error = kind === undefined ? null : (out.message ?? checkFailure ?? `HTTP ${out.status}`);
        if (kind !== undefined) st.fail({ kind, status: out.status, message: `${name}: ${error}` });
        resolve(o.arrivals.sent(out, error, st.kept));
      });
    });

  const loop = () => {
    timer = null;
    if (stopped) return;
    let nowMs = clk.now();
    const nowS = (nowMs - t0Ms) / 1000;
    let first = true;
    // a stop from a sink inside fire() (a step judged as its second rolled) ends the batch there
    while (!stopped && nextS !== null && nextS <= nowS) {
      // each arrival's own start time: the lag of the last of a batch includes the building and
      // sending of those before it
      if (!first) nowMs = clk.now();
      first = false;
      fire(nextS, nowMs);
      n += stripe.count;
      nextS = o.schedule.arrivalS(n);
    }
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
    const waitMs = (nextS - nowS) * 1000;
    timer = clk.setTimeout(loop, Math.max(1, Math.floor(waitMs)));
  };

  let finished = false;
  let graceTimer: Timer | null = null;
  function finish() {
    if (finished) return;
    finished = true;
    clk.clear(graceTimer);
    clk.clear(ticker);
    rec.close(clk.now());
    // n is the next (undispatched) global index; the seqs used are below it.
    resolveDone({ dispatched: own, lastSeq: o.seqOffset + n - 1 });
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
    graceTimer = clk.setTimeout(finish, graceMs);
  }

  // A later leg may be created before its start second: wait for it, then dispatch.
  const startInMs = t0Ms - clk.now();
  if (startInMs > 1) timer = clk.setTimeout(loop, startInMs);
  else loop();
  return { stop, done, elapsedS: () => (clk.now() - t0Ms) / 1000 };
}
