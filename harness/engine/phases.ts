/**
 * A request's timestamps and k6's phase vocabulary. The timestamps are taken by the VU itself, in
 * its socket's events and parser callbacks (socket-client.ts) or in undici's handler callbacks and
 * its own connector (undici-client.ts), so the hot path publishes and looks up nothing: no diagnostics
 * channel, no WeakMap per request (docs/decisions/006).
 */

export interface PhaseTimes {
  /** The arrival handed the request to the VU. */
  createdMs: number;
  /** Connect of the socket this request was the first to use; 0 when the socket was reused. */
  connectStartMs: number;
  connectEndMs: number;
  /** The VU began writing the request to the socket (undici: handler.onConnect). */
  sendStartMs: number;
  /** The request, body included, was written (undici: handler.onRequestSent). */
  bodySentMs: number;
  /** The response headers were parsed (undici: handler.onHeaders). */
  headersMs: number;
  /** The response ended (undici: handler.onComplete) or failed. */
  endMs: number;
}

export function resetPhaseTimes(t: PhaseTimes, nowMs: number): PhaseTimes {
  t.createdMs = nowMs;
  t.connectStartMs = 0;
  t.connectEndMs = 0;
  t.sendStartMs = 0;
  t.bodySentMs = 0;
  t.headersMs = 0;
  t.endMs = 0;
  return t;
}

export function newPhaseTimes(nowMs: number): PhaseTimes {
  return resetPhaseTimes({} as PhaseTimes, nowMs);
}

export interface PhasesMs {
  blocked: number;
  connecting: number;
  sending: number;
  waiting: number;
  receiving: number;
  duration: number;
}

/**
 * k6's phase vocabulary from the timestamps (ms), written into `into` (reused by the recorder):
 *   blocked = (connectStart or sendStart) - created; connecting = connectEnd - connectStart;
 *   sending = bodySent - sendStart; waiting = headers - bodySent; receiving = end - headers;
 *   duration = sending + waiting + receiving (k6's http_req_duration).
 */
export function phasesMs(t: PhaseTimes, into: PhasesMs): PhasesMs {
  const send = t.sendStartMs || t.createdMs;
  const sent = t.bodySentMs || send;
  const head = t.headersMs || sent;
  const end = t.endMs || head;
  into.connecting = t.connectStartMs ? t.connectEndMs - t.connectStartMs : 0;
  into.blocked = Math.max(0, (t.connectStartMs || send) - t.createdMs);
  into.sending = Math.max(0, sent - send);
  into.waiting = Math.max(0, head - sent);
  into.receiving = Math.max(0, end - head);
  into.duration = into.sending + into.waiting + into.receiving;
  return into;
}
