/**
 * A VU pool for the native engine in simulated time: no socket, no real time. Each VU answers
 * after `answer(req).ms` of the clock with `answer(req).status`, one request at a time (a second
 * request sent on a busy VU fails the test). `sent` counts the requests the VUs were given. And
 * the scenario of one transaction both engine tests send through it.
 */
import { expect } from 'vitest';
import type { SimClock } from '../../harness/clock.ts';
import { newOutcome } from '../../harness/engine/outcome.ts';
import type { PreparedRequest, SendDone, VuConnection } from '../../harness/engine/vu-connection.ts';
import type { VuPool } from '../../harness/engine/vu-pool.ts';
import { requestArrivals, type Arrivals, type TransactionRun } from '../../harness/scenario/arrivals.ts';
import { checkOf } from '../../harness/scenario/responses.ts';

export interface SimPool {
  active: number;
  max: number;
  readonly allocated: number;
  readonly sent: number;
  acquire(): VuConnection | null;
  release(vu: VuConnection): void;
}

export function simPool(
  clock: SimClock,
  maxVUs: number,
  /** `body`: the response's, kept as a client keeps a failed one's start, its status then failing it as endOutcome does. */
  answer: (req: PreparedRequest) => { ms: number; status: number; body?: string },
): SimPool & VuPool {
  const free: VuConnection[] = [];
  let allocated = 0;
  let sent = 0;
  const pool = {
    active: 0,
    refused: 'max' as const,
    max: maxVUs,
    get allocated() {
      return allocated;
    },
    get sent() {
      return sent;
    },
    acquire(): VuConnection | null {
      let vu = free.pop();
      if (!vu) {
        if (allocated >= pool.max) return null;
        allocated++;
        let busy = false;
        const me = {
          send(req: PreparedRequest, done: SendDone) {
            expect(busy, 'a second request on a busy VU').toBe(false);
            busy = true;
            sent++;
            const { ms, status, body } = answer(req);
            const out = newOutcome();
            const t = out.times;
            t.createdMs = t.sendStartMs = t.bodySentMs = clock.now();
            clock.setTimeout(() => {
              busy = false;
              t.headersMs = t.endMs = clock.now();
              out.status = status;
              if (body !== undefined) {
                out.bodyChunks = [Buffer.from(body)];
                out.bytesIn = Buffer.byteLength(body);
                if (status >= 400) out.kind = status >= 500 ? 'http_5xx' : 'http_4xx';
              }
              done(me, out);
            }, ms);
          },
        } as unknown as VuConnection;
        vu = me;
      }
      pool.active++;
      return vu;
    },
    release(vu: VuConnection) {
      pool.active--;
      free.push(vu);
    },
    // its VUs answer in simulated time and carry no http.timeoutMs deadline to expire
    expireDue() {},
  };
  return pool as unknown as SimPool & VuPool;
}

/** A scenario of one transaction entry, its sends' specs taken as GETs of their url. */
export function onlyTransaction(txn: TransactionRun, transactionTimeoutMs?: number): Arrivals {
  return {
    ...requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null })),
    byName: true,
    entries: [txn],
    entryOf: () => txn,
    period: 1,
    prepare: (spec) => ({ method: 'GET', path: spec.url, headers: {}, body: null }),
    checkOf,
    admit: () => null,
    ...(transactionTimeoutMs !== undefined ? { transactionTimeoutMs } : {}),
  };
}
