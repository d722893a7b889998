/**
 * The responses scenario code reads on the native engine and in preflight's sample arrivals: a
 * check's (ResponseView, over the VU's outcome while the check runs) and a transaction's (Sent, what
 * http.send resolves with, kept past the outcome). Both decode headers and body only when read, and
 * a read of what the request did not keep throws the fix instead of an empty value
 * (docs/decisions/028). Apart from requests.ts, which loads the scenario once: these run per answer.
 */
import type { Check, ResponseInfo, SentResponse } from './types.ts';
import {
  bodyCutText,
  bodyNotJson,
  CHECK_CANNOT_JUDGE,
  checkReturned,
  checkThrew,
  cutNote,
  notGiven,
  notKept,
} from './verdict.ts';
import { bodyText, type Outcome } from '../engine/outcome.ts';
import { responseHeaders } from '../engine/response-headers.ts';

/** What a request kept for its check: the body (its check's text names body or json), the headers (names headers). */
export interface Kept {
  body: boolean;
  headers: boolean;
  /** The most of a body kept (http.maxBodyBytes): a body that fills it may have been cut. */
  bodyBytes?: number;
}
export const KEPT_ALL: Kept = { body: true, headers: true };

/**
 * A check's verdict: true accepts; false, nothing or a message rejects; a throw is its message.
 * A check that reads what its request did not keep (through a helper, or a computed name) throws,
 * so it fails with the fix instead of judging an empty body (docs/decisions/028).
 */
export function checkOf(
  check: Check | undefined,
  o: Outcome,
  kept: Kept = KEPT_ALL,
  where: 'check' | 'transaction' = 'check',
): string | null {
  return check ? verdict(check, new ResponseView(kept, where).over(o)) : null;
}

/** A check given to http.send: what it may read is what its transaction's run reads (its own text does not count). */
export function transactionCheckOf(check: Check | undefined, o: Outcome, kept: Kept = KEPT_ALL): string | null {
  return checkOf(check, o, kept, 'transaction');
}

/** A request entry's check, as checkOf, over one view for every check of the entry (a check runs to its end before the next begins). */
export function entryCheck(check: Check, kept: Kept): (o: Outcome) => string | null {
  const view = new ResponseView(kept);
  return (o) => verdict(check, view.over(o));
}

function verdict(check: Check, res: ResponseView): string | null {
  let v: string | null;
  try {
    v = checkReturned(check(res));
  } catch (err) {
    v = checkThrew(err, err instanceof Error ? err.message : String(err));
  }
  return v === null ? null : v + res.cutNote(v);
}
/** The bytes of a body kept. */
function keptBytes(chunks: readonly Buffer[]): number {
  let n = 0;
  for (const c of chunks) n += c.length;
  return n;
}

/**
 * The response a check sees, over the VU's outcome (valid while the check runs): headers parsed
 * and the body decoded only when read. An entry's checks share one, set over each outcome in turn.
 */
class ResponseView implements ResponseInfo {
  private o!: Outcome;
  constructor(
    private readonly kept: Kept,
    private readonly where: 'check' | 'transaction' = 'check',
  ) {}
  over(o: Outcome): this {
    this.o = o;
    return this;
  }
  get status(): number {
    return this.o.status;
  }
  get headers(): Record<string, string | string[] | undefined> {
    if (!this.kept.headers) throw notGiven(notKept('headers', 'res.headers', this.where));
    return responseHeaders(this.o);
  }
  get body(): string {
    if (!this.kept.body) throw notGiven(notKept('body', 'res.body or res.json()', this.where));
    return bodyText(this.o);
  }
  get truncated(): boolean {
    if (!this.kept.body) throw notGiven(notKept('body', 'res.body or res.json()', this.where));
    return this.o.bytesIn > keptBytes(this.o.bodyChunks);
  }
  json(): any {
    return parseJson(this.body, this.o.bodyChunks, this.kept.bodyBytes);
  }
  text(): string {
    return this.body;
  }
  /**
   * What a rejection (`verdict`) adds when the body the check could read was cut: how much it saw
   * (cutNote). Not to a verdict plateau gave already (CHECK_CANNOT_JUDGE: a body not kept, or
   * JSON cut short, which says the fix itself).
   */
  cutNote(verdict: string): string {
    if (!this.kept.body || verdict.startsWith(CHECK_CANNOT_JUDGE)) return '';
    const seen = keptBytes(this.o.bodyChunks);
    return this.o.bytesIn > seen ? cutNote(seen, this.o.bytesIn) : '';
  }
}

/** The body as JSON; when it does not parse and filled what is kept of a body, the message says it was cut and the fix. */
function parseJson(text: string, chunks: readonly Buffer[], limit: number | undefined): any {
  try {
    return JSON.parse(text);
  } catch {
    const kept = chunks.reduce((a, c) => a + c.length, 0);
    if (limit !== undefined && limit > 0 && kept >= limit) throw notGiven(bodyCutText(limit));
    throw bodyNotJson(text.length === 0 ? 'empty' : JSON.stringify(text.slice(0, 60)));
  }
}

export function sent(o: Outcome, error: string | null, kept: Kept = KEPT_ALL): SentResponse {
  return new Sent(o, error, kept);
}

/**
 * A transaction's response, decoded only when read. It keeps the outcome's arrays, not the
 * outcome: the VU's next request gives the outcome new ones (startOutcome), so these stay as they
 * were when the response ended.
 */
class Sent implements SentResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly #raw: Outcome['rawHeaders'];
  readonly #chunks: Buffer[];
  /** The body's size (Outcome.bytesIn): more than the chunks kept when it was cut. */
  readonly #total: number;
  #headers: Record<string, string | string[] | undefined> | undefined;
  #body: string | undefined;
  readonly #kept: Kept;
  constructor(o: Outcome, error: string | null, kept: Kept) {
    this.#kept = kept;
    this.status = o.status;
    this.ok = error === null;
    if (error !== null) this.error = error;
    // the socket client's parser refills one header array per connection: keep a copy of this one's
    this.#raw = o.rawHeaders ? (o.rawHeaders.slice() as Outcome['rawHeaders']) : null;
    // an empty array is the one the VU's next response fills (startOutcome swaps only a full one)
    this.#chunks = o.bodyChunks.length ? o.bodyChunks : [];
    this.#total = o.bytesIn;
  }
  get headers(): Record<string, string | string[] | undefined> {
    if (!this.#kept.headers) throw notGiven(notKept('headers', 'made.headers', 'transaction'));
    return (this.#headers ??= responseHeaders({ rawHeaders: this.#raw } as Outcome));
  }
  get body(): string {
    if (!this.#kept.body) throw notGiven(notKept('body', 'made.body or made.json()', 'transaction'));
    return (this.#body ??= bodyText({ bodyChunks: this.#chunks } as Outcome));
  }
  get truncated(): boolean {
    if (!this.#kept.body) throw notGiven(notKept('body', 'made.body or made.json()', 'transaction'));
    return this.#total > keptBytes(this.#chunks);
  }
  json(): any {
    return parseJson(this.body, this.#chunks, this.#kept.bodyBytes);
  }
  text(): string {
    return this.body;
  }
}
