/**
 * A transaction of the native engine on its arrival's VU: run(ctx, http), each http.send on the
 * VU's keep-alive connection, then the arrival is counted and the VU freed. A send made while
 * another of the arrival is in flight (Promise.all) goes at once on a free VU borrowed from the
 * pool, which it gives back when its answer is read, as a browser or k6 opens another connection;
 * with none free (the pool at its maximum), it waits for the first of the arrival's VUs, its own or
 * a borrowed one, to be free (its latency then starts when it is sent, and the wait is in the
 * transaction's duration).
 * One object per arrival holds its state; the VU's completion finds it as the VU's job
 * (VuConnection.job), so the usual awaited send makes its promise and nothing else: no closure, no
 * executor of its own, no map lookup.
 */
import type { ErrorKind } from '../../analysis/types.ts';
import type { BucketRecorder } from './recorder.ts';
import type { Outcome } from './outcome.ts';
import type { PreparedRequest, SendDone, VuConnection } from './vu-connection.ts';
import type { Arrivals, TransactionRun } from '../scenario/arrivals.ts';
import type { Check, RequestSpec, SentResponse, TransactionHttp } from '../scenario/types.ts';
import { deadlineMessage, inFlightAtReturn, SEND_AFTER_END } from '../scenario/traffic.ts';
import { sendPromise } from '../scenario/send-promise.ts';
import { checkFailureKind } from '../scenario/verdict.ts';
import { httpFailureText } from './failure-text.ts';

/** What failed an arrival of a transaction: its first failed request or check, or what run threw. */
interface Failure {
  kind: ErrorKind;
  status: number;
  message: string;
  /** The send that failed, where one did: its samples are told apart by it (open-bucket.ts). */
  send?: string;
}

/** What a transaction needs of its engine run. */
export interface TransactionHost {
  arrivals: Arrivals;
  rec: BucketRecorder;
  now(): number;
  /** Frees the VU once the arrival is counted, or a borrowed one once its answer is read. */
  release(vu: VuConnection): void;
  /** A free VU of the pool for a send made while another is in flight; null when none is free. */
  borrow(): VuConnection | null;
  /** http.transactionTimeoutMs: an arrival not ended by then fails (kind timeout). */
  timeoutMs: number;
  /** The arrival is counted (ended, or expired): the engine stops watching its deadline. */
  ended(t: Transaction): void;
}

/** What http.send resolves to when the request was never sent (a refused name, a malformed request). */
function refusedResponse(error: string): SentResponse {
  return {
    status: 0,
    headers: {},
    body: '',
    truncated: false,
    json: () => {
      throw new Error(`no response: ${error}`);
    },
    text: () => '',
    ok: false,
    error,
  };
}

/** Every send's executor: new Promise runs it at once, and the send takes the resolve it left. */
let captured: ((r: SentResponse) => void) | null = null;
const capture = (resolve: (r: SentResponse) => void): void => {
  captured = resolve;
};

/** The VU's completion of a transaction's request on its own VU: the transaction is the VU's job. */
const onAnswer: SendDone = (vu, out) => (vu.job as Transaction).answered(out);

/** A send made while another was in flight, on a borrowed VU (whose job it is). */
interface SideSend {
  t: Transaction;
  name: string;
  check: Check | undefined;
  resolve: (r: SentResponse) => void;
  /** host.now() when it was sent: the borrowed VU's time runs from then to its answer. */
  sentMs: number;
}

const onSideAnswer: SendDone = (vu, out) => {
  const side = vu.job as SideSend;
  side.t.sideAnswered(vu, side, out);
};

/** A send waiting for one of the arrival's VUs (none was free to borrow). */
interface Waiting {
  name: string;
  spec: RequestSpec;
  check: Check | undefined;
  resolve: (r: Promise<SentResponse>) => void;
}

/**
 * A transaction's http.send. Made here, not inline: a function returned is not named, where tsx
 * (esbuild's keepNames) names an arrow written as a property with Object.defineProperty, which
 * cost about 3% of the mix's CPU in a profile of the engine alone (perf, fake VUs).
 */
function sendOf(t: Transaction): TransactionHttp['send'] {
  // the promise read before it is awaited (made.ok) throws the fix (send-promise.ts)
  return (name, spec, check) => sendPromise(t.send(name, spec, check), name);
}

export class Transaction {
  private failure: Failure | null = null;
  /** Sends made and not yet ended (in flight, or waiting for the arrival's VU). */
  private pending = 0;
  /** The arrival has ended: a later send is refused (its VU may serve the next arrival). */
  private ended = false;
  /** It ended at its deadline (kind timeout). */
  private expired = false;
  /** Its VU went back to the pool (once: by the end of run, or after its deadline). */
  private released = false;
  /** run's wait for its sends to end (pending back to 0). */
  private idle: (() => void) | null = null;
  /** The arrival's own VU has a request in flight. */
  private busy = false;
  /** ms the arrival's sends held borrowed VUs (NameBucket.borrowedMs). */
  private borrowedMs = 0;
  /** Sends waiting for one of the arrival's VUs (made while its own was busy and none was free to borrow). */
  private waiting: Waiting[] | null = null;
  /** Sends in flight on borrowed VUs (made together: rare), for the names of those run did not await. */
  private sides: SideSend[] | null = null;
  /** The request in flight on the arrival's VU: its name, its check, and the resolve of its send's promise. */
  private name = '';
  private check: Check | undefined = undefined;
  private resolve: ((r: SentResponse) => void) | null = null;
  /** One closure per arrival, so that http.send works unbound too (`const { send } = http`). */
  readonly http: TransactionHttp = { send: sendOf(this) };

  constructor(
    private readonly host: TransactionHost,
    private readonly entry: TransactionRun,
    private readonly vu: VuConnection,
    private readonly startMs: number,
  ) {}

  /** Runs arrival seq to its end and counts it; never rejects (what run throws fails the arrival). */
  async run(seq: number): Promise<void> {
    try {
      await this.entry.run(seq, this.http);
    } catch (err) {
      this.fail('other', 0, `${this.entry.name} threw: ${this.host.arrivals.threw(err)}`);
    }
    // a send still in flight was not awaited: its answer is never tested, so the arrival fails
    // (an awaited send has ended: its pending count drops before its promise's reactions run)
    if (this.pending > 0 && !this.ended) this.fail('other', 0, inFlightAtReturn(this.entry.name, this.inFlight()));
    // sends run left going (not awaited, or chained in a .then) still end before the arrival does
    // and frees its VU (a send never rejects; one chained on another's answer is made before run wakes)
    while (this.pending > 0) await new Promise<void>((wake) => (this.idle = wake));
    if (this.ended) return; // past its deadline: counted then, its VU freed when idle
    this.end();
  }

  /** The names of the sends in flight or waiting: the arrival's own VU's first. */
  private inFlight(): string[] {
    const names = this.busy ? [this.name] : [];
    for (const side of this.sides ?? []) names.push(side.name);
    for (const w of this.waiting ?? []) names.push(w.name);
    return names;
  }

  /** Whether the arrival is still running at nowMs past its deadline (TransactionHost.timeoutMs). */
  overdue(nowMs: number): boolean {
    return !this.ended && nowMs - this.startMs >= this.host.timeoutMs;
  }

  /**
   * Its deadline passed: the arrival fails (kind timeout) now, a later send is refused (a waiting
   * one too), and its VU goes back to the pool once no request of it is in flight (that request has
   * its own timeout).
   */
  expire(): void {
    if (this.ended) return;
    this.expired = true;
    this.fail('timeout', 0, deadlineMessage(this.entry.name, this.host.timeoutMs));
    this.end();
    this.startWaiting();
  }

  /**
   * The engine run finished (its grace over) with this arrival still running: it belongs to no run
   * now, so it is not counted (as a one-request arrival in flight then is not), a later send is
   * refused and not counted either, and its VU goes back to the pool once no request of it is in
   * flight: a transaction awaiting what never settles no longer holds a VU through the next legs.
   */
  abandon(): void {
    if (this.ended) return;
    this.expired = true;
    this.ended = true;
    this.host.ended(this);
    if (this.pending === 0) this.release();
    this.startWaiting();
  }

  /** Counts the arrival and frees its VU when idle; a later send is refused. */
  private end(): void {
    this.ended = true;
    const endMs = this.host.now();
    this.host.rec.transaction(endMs, this.entry.name, endMs - this.startMs, this.failure, this.borrowedMs);
    this.host.ended(this);
    if (this.pending === 0) this.release();
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.host.release(this.vu);
  }

  send(name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> {
    // a send after run returned (not awaited) would use a VU already given to the next arrival
    if (this.ended) {
      // the arrival is counted already: a send run did not await is counted under its name, so the
      // bug shows (one made past the deadline is the timeout's consequence, counted by it)
      if (!this.expired) {
        // its name as any send's: one refused (built from data, past the limit, a transaction's) gets no row
        // refused or not, it fails no arrival (counted already): not a refusal of refusedNames
        const named = this.host.arrivals.admit(name) === null ? name : null;
        this.host.rec.sentAfterEnd(this.host.now(), named, `${String(name)}: ${SEND_AFTER_END}`);
      }
      return Promise.resolve(refusedResponse(SEND_AFTER_END));
    }
    this.pending++;
    // the usual await-each-send goes straight to the arrival's VU
    if (!this.busy) return this.sendNow(name, spec, check);
    const vu = this.host.borrow();
    if (vu !== null) return this.sendBorrowed(vu, name, spec, check);
    return new Promise<SentResponse>((resolve) => (this.waiting ??= []).push({ name, spec, check, resolve }));
  }

  /** Admitted by name and prepared, or why not (a string: the send is refused, never sent). */
  private prepared(name: string, spec: RequestSpec): PreparedRequest | string {
    const arrivals = this.host.arrivals;
    const bad = arrivals.admit(name);
    if (bad !== null) {
      this.host.rec.nameRefused(this.host.now(), bad);
      return bad;
    }
    try {
      return arrivals.prepare(spec, this.entry.kept);
    } catch (err) {
      return `scenario threw: ${(err as Error).message}`;
    }
  }

  /** On the arrival's own VU; resolved by answered(). */
  private sendNow(name: string, spec: RequestSpec, check: Check | undefined): Promise<SentResponse> {
    const req = this.prepared(name, spec);
    if (typeof req === 'string') return this.refused(req);
    this.busy = true;
    this.name = name;
    this.check = check;
    const p = new Promise<SentResponse>(capture);
    this.resolve = captured;
    captured = null;
    this.vu.job = this;
    this.vu.send(req, onAnswer);
    return p;
  }

  /** On a VU borrowed from the pool; resolved by sideAnswered(), which gives the VU back or to the next send waiting. */
  private sendBorrowed(vu: VuConnection, name: string, spec: RequestSpec, check: Check | undefined) {
    const req = this.prepared(name, spec);
    if (typeof req === 'string') {
      this.host.release(vu);
      return this.refused(req);
    }
    const p = new Promise<SentResponse>(capture);
    const side: SideSend = { t: this, name, check, resolve: captured!, sentMs: this.host.now() };
    captured = null;
    (this.sides ??= []).push(side);
    vu.job = side;
    vu.send(req, onSideAnswer);
    return p;
  }

  private refused(message: string): Promise<SentResponse> {
    this.fail('other', 0, message);
    this.sendEnded();
    return Promise.resolve(refusedResponse(message));
  }

  /** The request in flight on the arrival's VU ended: recorded, its send resolved, a waiting send goes. */
  answered(out: Outcome): void {
    this.busy = false;
    const response = this.recorded(this.name, this.check, out);
    const resolve = this.resolve!;
    this.resolve = null;
    resolve(response);
    this.startWaiting();
    this.sendEnded();
  }

  /**
   * A borrowed VU's request ended: recorded and read, then the VU takes the next send waiting, if
   * any (so that many sends made at once share every VU the pool could give), or goes back to the pool.
   */
  sideAnswered(vu: VuConnection, side: SideSend, out: Outcome): void {
    const response = this.recorded(side.name, side.check, out);
    this.borrowedMs += this.host.now() - side.sentMs;
    this.sides!.splice(this.sides!.indexOf(side), 1);
    const next = this.ended ? undefined : this.waiting?.shift();
    if (next) next.resolve(this.sendBorrowed(vu, next.name, next.spec, next.check));
    else this.host.release(vu);
    side.resolve(response);
    this.sendEnded();
  }

  /** Recorded under its name, its check judged; the response as the scenario sees it (read from `out` now: the VU reuses it). */
  private recorded(name: string, check: Check | undefined, out: Outcome): SentResponse {
    const { arrivals, rec } = this.host;
    const kept = this.entry.kept;
    const checkFailure = out.kind ? null : arrivals.checkOf(check, out, kept);
    rec.sent(out.times.endMs, name, out, checkFailure);
    const kind: ErrorKind | undefined =
      out.kind ?? (checkFailure !== null ? checkFailureKind(checkFailure) : undefined);
    const error = kind === undefined ? null : (out.message ?? checkFailure ?? `HTTP ${out.status}`);
    // the arrival's first failure is its sample: one that failed by its status says the check's
    // message and the start of the body (failure-text.ts), built only where its second keeps a
    // sample of it (an error storm's thousands a second run no check); made.error stays the status, as on k6
    if (kind !== undefined && this.failure === null) {
      const worded =
        out.message === undefined && checkFailure === null && rec.wantsSample(out.times.endMs, kind, out.status, name);
      this.fail(
        kind,
        out.status,
        `${name}: ${out.message ?? checkFailure ?? (worded ? httpFailureText(out.status, arrivals.checkOf(check, out, kept), out.bodyChunks, out.bytesIn) : `HTTP ${out.status}`)}`,
        name,
      );
    }
    return arrivals.sent(out, error, kept);
  }

  /** The sends waiting: the next goes on the arrival's own VU now that it is free; after the end, each is refused. */
  private startWaiting(): void {
    const waiting = this.waiting;
    while (waiting !== null && waiting.length > 0 && (!this.busy || this.ended)) {
      const w = waiting.shift()!;
      w.resolve(this.ended ? this.refused(SEND_AFTER_END) : this.sendNow(w.name, w.spec, w.check));
    }
  }

  /** A send ended (answered or refused): once none is left, run's wait ends, and past its deadline the VU is freed. */
  private sendEnded(): void {
    this.pending--;
    if (this.pending > 0) return;
    const wake = this.idle;
    this.idle = null;
    wake?.();
    if (this.ended) this.release();
  }

  private fail(kind: ErrorKind, status: number, message: string, send?: string): void {
    this.failure ??= send === undefined ? { kind, status, message } : { kind, status, message, send };
  }
}
