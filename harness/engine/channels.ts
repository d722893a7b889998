/**
 * Every undici diagnostics channel plateau listens to, in one place with one unsubscribe
 * (CONVENTIONS 9). Timestamps are taken in the subscriber and kept per undici Request object.
 *
 * A request is tied to its timing record by `expectNext(times)` just before `client.dispatch()`:
 * undici's Client constructs the Request, and publishes `undici:request:create`, synchronously
 * inside dispatch. Each VU owns one Client, so the socket a request is sent on was connected for
 * that VU; the first request sent on a new socket is charged its connect time (as k6 does).
 */
import diagnostics from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

export interface PhaseTimes {
  createdMs: number;
  connectStartMs: number;
  connectEndMs: number;
  sendStartMs: number;
  bodySentMs: number;
  headersMs: number;
  endMs: number;
}

export function newPhaseTimes(nowMs: number): PhaseTimes {
  return { createdMs: nowMs, connectStartMs: 0, connectEndMs: 0, sendStartMs: 0, bodySentMs: 0, headersMs: 0, endMs: 0 };
}

interface SocketConnect { startMs: number; endMs: number; claimed: boolean }

let pending: PhaseTimes | null = null;
const byRequest = new WeakMap<object, PhaseTimes>();
const connectStarts = new WeakMap<object, number>();
const bySocket = new WeakMap<object, SocketConnect>();

type Msg = { request: object; socket?: object; connector?: object };

const handlers: Record<string, (m: Msg) => void> = {
  'undici:request:create': (m) => {
    if (pending) { byRequest.set(m.request, pending); pending = null; }
  },
  'undici:client:beforeConnect': (m) => { connectStarts.set(m.connector!, performance.now()); },
  'undici:client:connected': (m) => {
    const now = performance.now();
    bySocket.set(m.socket!, { startMs: connectStarts.get(m.connector!) ?? now, endMs: now, claimed: false });
  },
  'undici:client:sendHeaders': (m) => {
    const t = byRequest.get(m.request);
    if (!t) return;
    t.sendStartMs = performance.now();
    const c = m.socket && bySocket.get(m.socket);
    if (c && !c.claimed) { c.claimed = true; t.connectStartMs = c.startMs; t.connectEndMs = c.endMs; }
  },
  'undici:request:bodySent': (m) => { const t = byRequest.get(m.request); if (t) t.bodySentMs = performance.now(); },
  'undici:request:headers': (m) => { const t = byRequest.get(m.request); if (t) t.headersMs = performance.now(); },
  'undici:request:trailers': (m) => { const t = byRequest.get(m.request); if (t) t.endMs = performance.now(); },
};

let subscribers = 0;

/** The next undici Request created on this thread gets these timing records. */
export function expectNext(times: PhaseTimes): void {
  pending = times;
}

/** Forget an expectation that no Request claimed (dispatch threw before creating one). */
export function clearExpectation(): void {
  pending = null;
}

/** Subscribes once per process (reference-counted); the returned function unsubscribes. */
export function subscribeChannels(): () => void {
  if (subscribers++ === 0) {
    for (const [name, fn] of Object.entries(handlers)) diagnostics.subscribe(name, fn as (m: unknown) => void);
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--subscribers === 0) {
      for (const [name, fn] of Object.entries(handlers)) diagnostics.unsubscribe(name, fn as (m: unknown) => void);
    }
  };
}

/**
 * k6's phase vocabulary from the timestamps (ms):
 *   blocked = (connectStart or sendStart) - created; connecting = connectEnd - connectStart;
 *   sending = bodySent - sendStart; waiting = headers - bodySent; receiving = end - headers;
 *   duration = sending + waiting + receiving (k6's http_req_duration).
 */
export function phasesMs(t: PhaseTimes): { blocked: number; connecting: number; sending: number; waiting: number; receiving: number; duration: number } {
  const send = t.sendStartMs || t.createdMs;
  const sent = t.bodySentMs || send;
  const head = t.headersMs || sent;
  const end = t.endMs || head;
  const connecting = t.connectStartMs ? t.connectEndMs - t.connectStartMs : 0;
  const blocked = Math.max(0, (t.connectStartMs || send) - t.createdMs);
  const sending = Math.max(0, sent - send);
  const waiting = Math.max(0, head - sent);
  const receiving = Math.max(0, end - head);
  return { blocked, connecting, sending, waiting, receiving, duration: sending + waiting + receiving };
}
