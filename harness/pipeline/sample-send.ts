/**
 * A sample arrival's request, sent with undici: its answer as the engine's Outcome (status, headers,
 * the body kept as the engine keeps it, its size as the engine counts it), within the engine's
 * total deadline, and its first bytes apart for preflight's message. Apart from sample-arrival.ts:
 * this is the only part that touches the network.
 */
import { request, type Dispatcher } from 'undici';
import type { PlateauConfig } from '../config/schema.ts';
import { newOutcome, type Outcome } from '../engine/outcome.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';
import { deadlineSignal } from '../engine/deadline.ts';
import { sampleLabel, unanswered } from './sample-blame.ts';

/** What preflight shows of a refused answer: its first bytes (a hostile target may send gigabytes). */
const SHOWN_BYTES = 200;

/** A sample's answer: the outcome the check sees (its body kept as the engine keeps it) and the first bytes shown on a refusal. */
export interface Answer {
  o: Outcome;
  shown: Buffer;
}

/**
 * One request with undici; its answer as the engine's Outcome (status, headers, and the body kept
 * exactly as the engine keeps it: PreparedRequest.keepBodyBytes, at most http.maxBodyBytes), and
 * its first bytes apart, for the message when the sample is refused.
 */
export async function send(
  config: PlateauConfig,
  req: PreparedRequest,
  name: string,
  transaction: string | null,
): Promise<Answer> {
  const url = new URL(req.path, config.target.url).href;
  const timeoutMs = config.http.timeoutMs;
  const o = newOutcome();
  const shownChunks: Buffer[] = [];
  let res: Dispatcher.ResponseData;
  // the total deadline, as the engine's: an answer that came in time is read before it fires, even
  // after a stall of this process (in CI one read a sample as unanswered: decision 041)
  const deadline = deadlineSignal(timeoutMs);
  try {
    res = await request(url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body ?? undefined,
      headersTimeout: 0,
      bodyTimeout: 0,
      signal: deadline.signal,
    });
    const keep = req.keepBodyBytes ?? 0;
    let n = 0;
    let whole = true;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (n < keep) o.bodyChunks.push(Buffer.from(chunk.subarray(0, keep - n)));
      if (n < SHOWN_BYTES) shownChunks.push(Buffer.from(chunk.subarray(0, SHOWN_BYTES - n)));
      n += chunk.length;
      // past what is kept (a byte more tells a body cut from one that ended there), no further
      if (n > Math.max(keep, SHOWN_BYTES)) {
        whole = false;
        break;
      }
    }
    res.body.destroy();
    // the body's size, as the engine counts it (Outcome.bytesIn): a body cut at what is kept says
    // how much of it its check saw; one not read to its end is its Content-Length, else unknown
    o.bytesIn = whole ? n : (declaredLength(res.headers['content-length']) ?? Infinity);
  } catch (err) {
    const e = err as Error & { code?: string | number };
    // the deadline's DOMException (deadlineSignal; undici's own timeouts are off) has the numeric
    // code 23: say what ran out instead
    const why =
      e.name === 'TimeoutError'
        ? `no answer within http.timeoutMs (${timeoutMs} ms)`
        : `${e.code ?? e.name}: ${e.message}`;
    throw unanswered(config, sampleLabel(name, transaction, req.method, url), name, why, e.name === 'TimeoutError');
  } finally {
    deadline.clear();
  }
  o.status = res.statusCode;
  o.rawHeaders = Object.entries(res.headers).flatMap(([k, v]) =>
    Array.isArray(v) ? v.flatMap((x) => [k, x]) : v === undefined ? [] : [k, String(v)],
  );
  return { o, shown: Buffer.concat(shownChunks) };
}

/** A Content-Length header's byte count, or null when absent or not a whole number. */
function declaredLength(v: string | string[] | undefined): number | null {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
}
