/**
 * A transaction on k6: the entry's run(ctx, http) with http.send on http.asyncRequest, each
 * request named by its send. The arrival fails with the first failure it met (a request's
 * ErrorKind, `check`, or `other` for a refused name, a malformed request or a throw of run); its
 * duration runs from the arrival's start to the end of run and its sends (think time included).
 */
import type { ErrorKind } from '../../../analysis/types.ts';
import type { Check, RequestSpec, ScenarioContext, SentResponse, TransactionHttp } from '../../scenario/types.ts';
import { NameBook } from '../../scenario/names.ts';
import type { RuntimeConfig } from './config.ts';
import { messageOf, responseInfo, type Failure, type Keep } from './response.ts';
import { sendAsync, type Sent } from './send.ts';
import { deadlineMessage, inFlightAtReturn, SEND_AFTER_END } from '../../scenario/traffic.ts';
import { sendPromise } from '../../scenario/send-promise.ts';
import { globalTimers } from './timers.ts';

export interface ArrivalResult {
  outcome: 'ok' | ErrorKind;
  durationMs: number;
  /** Why it failed (kept short), when it did. */
  message?: string;
  /** A one-request entry that failed before its request was sent (no http_reqs sample names it). */
  unsent?: boolean;
}

function notSent(error: string): SentResponse {
  return {
    status: 0,
    headers: {},
    body: '',
    truncated: false,
    json() {
      throw new Error(`no response to read: ${error}`);
    },
    text: () => '',
    ok: false,
    error,
  };
}

/** What http.send resolves with: what run does not read throws when read, naming the fix (as natively). */
function sentResponse(sent: Sent, keep: Keep, maxBodyBytes: number): SentResponse {
  const made = responseInfo(sent.res, keep, maxBodyBytes, 'transaction', 'made');
  return Object.assign(made, { ok: sent.failure === null }, sent.failure ? { error: sent.failure.message } : {});
}

/**
 * The transaction's end or its deadline, whichever comes first: its arrival is counted then (kind
 * timeout past it, as on the native engine), and sends still in flight end on their own (k6 ends
 * the iteration once they have). Without global timers or a deadline, its end.
 */
async function withDeadline(done: Promise<void>, timeoutMs: number | undefined): Promise<'ended' | 'expired'> {
  const timers = globalTimers();
  if (!timeoutMs || timers === null) return done.then(() => 'ended');
  let timer: unknown;
  const expired = new Promise<'expired'>((resolve) => {
    timer = timers.setTimeout(() => resolve('expired'), timeoutMs);
  });
  try {
    return await Promise.race([done.then(() => 'ended' as const), expired]);
  } finally {
    timers.clearTimeout(timer);
  }
}

/**
 * Runs one transaction. A send goes at once: sends made together (Promise.all) are in flight
 * together, k6 opening another connection of the VU for each, as the native engine borrows a free
 * VU. The arrival ends when run has returned and every send it made has settled (one made later is
 * refused). A refused name or a malformed request is never sent: it resolves with ok false and
 * fails the arrival (kind other), as does a throw of run.
 */
export async function runTransaction(
  entry: {
    name: string;
    run: (ctx: ScenarioContext, http: TransactionHttp) => Promise<void> | void;
    /** What run's own code reads of a response (TrafficEntry.runReads): only that is kept. */
    reads: Keep;
  },
  ctx: ScenarioContext,
  cfg: Pick<RuntimeConfig, 'origin' | 'timeoutMs' | 'maxBodyBytes' | 'transactionTimeoutMs'>,
  names: NameBook,
  late: (name: string, message: string) => void,
  /** A send refused for its name, failing its arrival (the ingest counts it apart: BucketRecord.refusedNames). */
  refusedName: (message: string) => void,
  /** What a throw of run fails the arrival with, from its message (a write to a row: RowSource.threw). */
  threw: (message: string) => string = (message) => message,
): Promise<ArrivalResult> {
  const startMs = Date.now();
  let ended = false;
  let expired = false;
  let failure: Failure | null = null;
  const fail = (f: Failure) => {
    failure ??= f;
  };
  const refused = (message: string): SentResponse => {
    fail({ kind: 'other', message });
    return notSent(message);
  };
  const sendOne = (name: string, spec: RequestSpec, check: Check | undefined): Promise<SentResponse> => {
    const bad = names.problem(name);
    if (bad) {
      refusedName(bad);
      return Promise.resolve(refused(bad));
    }
    let pending: Promise<Sent>;
    try {
      pending = sendAsync(
        spec,
        { name, checkName: `${name}: check`, check, keep: entry.reads, transaction: true },
        cfg,
      );
    } catch (err) {
      return Promise.resolve(refused(`scenario threw: ${messageOf(err)}`));
    }
    return pending.then(
      (sent) => {
        if (sent.failure) fail({ kind: sent.failure.kind, message: `${name}: ${sent.failure.message}` });
        return sentResponse(sent, entry.reads, cfg.maxBodyBytes);
      },
      (err) => refused(`${name}: ${messageOf(err)}`),
    );
  };
  // the sends not yet settled (a send never rejects), by their names
  const pending = new Map<Promise<SentResponse>, string>();
  const http: TransactionHttp = {
    send(name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> {
      // a send after the arrival ended belongs to no arrival: refused, and counted under its name
      // as on the native engine (one made past the deadline is the timeout's consequence)
      if (ended) {
        const message = `${name}: ${SEND_AFTER_END}`;
        // its name as any send's: one refused (built from data, past the limit) gets no row
        if (!expired && names.problem(name) === null) late(name, message);
        return sendPromise(Promise.resolve(notSent(message)), name);
      }
      // the promise read before it is awaited (made.ok) throws the fix (send-promise.ts)
      const p = sendPromise(sendOne(name, spec, check), name);
      pending.set(p, name);
      // its first reaction: gone from pending before any await of it wakes
      void p.then(() => pending.delete(p));
      return p;
    },
  };
  const body = async (): Promise<void> => {
    try {
      await entry.run(ctx, http);
    } catch (err) {
      fail({ kind: 'other', message: `run threw: ${threw(messageOf(err))}` });
    }
    // a send still in flight was not awaited: its answer is never tested, so the arrival fails
    if (pending.size > 0 && !ended)
      fail({ kind: 'other', message: inFlightAtReturn(entry.name, [...pending.values()]) });
    // sends run left going (not awaited, or chained in a .then) still end before the arrival does
    while (pending.size > 0) await Promise.all(pending.keys());
  };
  if ((await withDeadline(body(), cfg.transactionTimeoutMs)) === 'expired') {
    expired = true;
    fail({ kind: 'timeout', message: deadlineMessage(entry.name, cfg.transactionTimeoutMs!) });
  }
  ended = true;
  // the whole transaction, from the arrival's start (as on the native engine)
  const durationMs = Date.now() - startMs;
  const f = failure as Failure | null;
  return f ? { outcome: f.kind, durationMs, message: f.message } : { outcome: 'ok', durationMs };
}
