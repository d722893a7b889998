/**
 * A transaction of the native engine on its arrival's VU: run(ctx, http), each http.send on the
 * VU's keep-alive connection, one request at a time (a send made while another is in flight waits
 * for it), then the arrival is counted and the VU freed. One object per arrival holds its state;
 * the VU's completion finds it as the VU's job (VuConnection.job), so a send makes its promise and
 * nothing else: no closure, no executor of its own, no map lookup.
 */
import type { ErrorKind } from '../../analysis/types.ts';
import type { BucketRecorder } from './recorder.ts';
import type { Outcome, PreparedRequest, SendDone, VuConnection } from './http.ts';
import type { Arrivals, TransactionRun } from '../scenario/requests.ts';
import type { Check, RequestSpec, SentResponse, TransactionHttp } from '../scenario/types.ts';

/** What failed an arrival of a transaction: its first failed request or check, or what run threw. */
interface Failure {
  kind: ErrorKind;
  status: number;
  message: string;
}

/** What a transaction needs of its engine run. */
export interface TransactionHost {
  arrivals: Arrivals;
  rec: BucketRecorder;
  now(): number;
  /** Frees the VU once the arrival is counted. */
  release(vu: VuConnection): void;
  /** http.transactionTimeoutMs: an arrival not ended by then fails (kind timeout). */
  timeoutMs: number;
  /** The arrival is counted (ended, or expired): the engine stops watching its deadline. */
  ended(t: Transaction): void;
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

/** Every send's executor: new Promise runs it at once, and the send takes the resolve it left. */
let captured: ((r: SentResponse) => void) | null = null;
const capture = (resolve: (r: SentResponse) => void): void => {
  captured = resolve;
};

/** The VU's completion of a transaction's request: the transaction is the VU's job. */
const onAnswer: SendDone = (vu, out) => (vu.job as Transaction).answered(out);

/**
 * A transaction's http.send. Made here, not inline: a function returned is not named, where tsx
 * (esbuild's keepNames) names an arrow written as a property with Object.defineProperty, which
 * cost about 3% of the mix's CPU in a profile of the engine alone (perf, fake VUs).
 */
function sendOf(t: Transaction): TransactionHttp['send'] {
  return (name, spec, check) => t.send(name, spec, check);
}

export class Transaction {
  private failure: Failure | null = null;
  /** Sends made and not yet ended (in flight, or waiting for the one in flight). */
  private pending = 0;
  /** The arrival has ended: a later send is refused (its VU may serve the next arrival). */
  private ended = false;
  /** Its VU went back to the pool (once: by the end of run, or after its deadline). */
  private released = false;
  private last: Promise<SentResponse> | null = null;
  /** The request in flight: its name, its check, and the resolve of its send's promise. */
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
      this.fail('other', 0, `${this.entry.name} threw: ${(err as Error)?.message ?? String(err)}`);
    }
    // sends run left going (not awaited, or chained in a .then) end before the arrival does and
    // frees its VU (a send never rejects)
    while (this.pending > 0) await this.last;
    if (this.ended) return; // past its deadline: counted then, its VU freed when idle
    this.end();
  }

  /** Whether the arrival is still running at nowMs past its deadline (TransactionHost.timeoutMs). */
  overdue(nowMs: number): boolean {
    return !this.ended && nowMs - this.startMs >= this.host.timeoutMs;
  }

  /**
   * Its deadline passed: the arrival fails (kind timeout) now, a later send is refused, and its VU
   * goes back to the pool once no request of it is in flight (that request has its own timeout).
   */
  expire(): void {
    if (this.ended) return;
    this.fail(
      'timeout',
      0,
      `${this.entry.name} did not end within ${this.host.timeoutMs} ms (http.transactionTimeoutMs): a promise it awaited never settled, or it needs a longer deadline, think time included`,
    );
    this.end();
  }

  /** Counts the arrival and frees its VU when idle; a later send is refused. */
  private end(): void {
    this.ended = true;
    const endMs = this.host.now();
    this.host.rec.transaction(endMs, this.entry.name, endMs - this.startMs, this.failure);
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
      this.fail('other', 0, `${name}: ${SEND_AFTER_END}`);
      return Promise.resolve(refusedResponse(SEND_AFTER_END));
    }
    // the usual await-each-send goes straight to the VU; one made while another is in flight waits for it
    const p =
      this.pending > 0 ? this.last!.then(() => this.sendNow(name, spec, check)) : this.sendNow(name, spec, check);
    this.pending++;
    this.last = p;
    return p;
  }

  /** Admitted by name, prepared, sent on the VU; resolved by answered(). */
  private sendNow(name: string, spec: RequestSpec, check: Check | undefined): Promise<SentResponse> {
    // one that waited for the request in flight, while the deadline passed
    if (this.ended) {
      this.pending--;
      if (this.pending === 0) this.release();
      return Promise.resolve(refusedResponse(SEND_AFTER_END));
    }
    const arrivals = this.host.arrivals;
    const bad = arrivals.admit(name);
    if (bad !== null) return this.refused(bad);
    let req: PreparedRequest;
    try {
      req = arrivals.prepare(spec, this.entry.kept);
    } catch (err) {
      return this.refused(`scenario threw: ${(err as Error).message}`);
    }
    this.name = name;
    this.check = check;
    const p = new Promise<SentResponse>(capture);
    this.resolve = captured;
    captured = null;
    this.vu.job = this;
    this.vu.send(req, onAnswer);
    return p;
  }

  private refused(message: string): Promise<SentResponse> {
    this.pending--;
    this.fail('other', 0, message);
    return Promise.resolve(refusedResponse(message));
  }

  /** The request in flight ended: recorded under its name, its check judged, its send resolved. */
  answered(out: Outcome): void {
    this.pending--;
    const { arrivals, rec } = this.host;
    const kept = this.entry.kept;
    const checkFailure = out.kind ? null : arrivals.checkOf(this.check, out, kept);
    rec.sent(out.times.endMs, this.name, out, checkFailure);
    const kind: ErrorKind | undefined = out.kind ?? (checkFailure !== null ? 'check' : undefined);
    const error = kind === undefined ? null : (out.message ?? checkFailure ?? `HTTP ${out.status}`);
    if (kind !== undefined) this.fail(kind, out.status, `${this.name}: ${error}`);
    const resolve = this.resolve!;
    this.resolve = null;
    resolve(arrivals.sent(out, error, kept));
    // past its deadline, the VU is free once its last request has ended
    if (this.ended && this.pending === 0) this.release();
  }

  private fail(kind: ErrorKind, status: number, message: string): void {
    this.failure ??= { kind, status, message };
  }
}
