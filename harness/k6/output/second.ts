/**
 * One second of k6 samples being summed: the requests (an OpenBucket, as the native engine's
 * recorder sums them), the arrivals counted apart from them, and the second's names.
 *
 * What an arrival is (ArrivalsFrom), decided when the second closes:
 *   'requests'        each iteration is one request (plateau's own one-request k6 scripts): the
 *                     requests' counts are the arrivals', as before names existed;
 *   'plateau_arrival' plateau's k6 runtime ran a mix: each arrival wrote one plateau_arrival sample
 *                     (value its duration in ms, tags name, outcome 'ok' or an ErrorKind,
 *                     transaction): completed / ok / errors count those, `requests` the requests;
 *   'iterations'      a k6 run of the user's own script (plateau import k6): an arrival is an
 *                     iteration (`iterations`, counted in the second it ended). When every
 *                     iteration of the second named its VU and iteration (k6's vu and iter, which
 *                     `--system-tags` must enable), ok is exact: the iterations none of whose
 *                     requests failed, and errors the kind of each failed one's first failed
 *                     request (bucketizer.ts matches them). Else
 *                       ok = max(0, iterations - failed requests of the same second)
 *                     since each failed request fails at most one iteration, and the failed
 *                     requests beyond the second's iterations are carried to the next second (their
 *                     iterations end later): over a run a lower bound on the iterations that
 *                     succeeded (exact when each iteration sends one request and ends in its
 *                     request's second), never above what completed; a second may read above its
 *                     truth when a failed request's iteration ends in the next one. errors are the
 *                     failed requests' kinds, cut (largest kind first) to the failed arrivals,
 *                     completed - ok. requestsFailed counts the second's failed requests apart,
 *                     so that a window's failed arrivals beyond them (iterations that failed by
 *                     requests sent before it) can be told (decision 063). A failed k6 `check()`
 *                     fails nothing, as in k6 (it is noted); plateau_check_failed, which only
 *                     plateau's scripts write, fails its request.
 */
import type { BucketRecord, ErrorKind, NameBucket } from '../../../analysis/types.ts';
import { ERROR_KINDS } from '../../../analysis/types.ts';
import { OpenBucket } from '../../engine/open-bucket.ts';
import { errorKindOf, errorMessageOf, isOk } from './error-kind.ts';
import type { K6Point } from './point.ts';
import { NameTally } from './names.ts';
import { SEND_AFTER_END } from '../../scenario/traffic.ts';

/** What the report says of an arrival whose request(ctx) threw on k6 (k6 printed the message on its console, once a message). */
const UNSENT_MESSAGE = 'other: the scenario threw before sending its request (k6 printed why on its console)';

export type ArrivalsFrom = 'requests' | 'iterations' | 'plateau_arrival';

export class K6Second {
  readonly b = new OpenBucket();
  /** `iterations` of this second (their end). */
  iterations = 0;
  /** Of those, the ones that named their VU and iteration, and the failed ones among them by their first failed request's kind. */
  iterationsKnown = 0;
  iterationsFailed = 0;
  iterationErrors: Partial<Record<ErrorKind, number>> = {};
  /**
   * After toRecord, the lower bound's failed requests (this second's and those carried in) that its
   * iterations did not take: their iterations end later (bucketizer.ts carries them on).
   */
  failedLeft: Partial<Record<ErrorKind, number>> = {};
  /** plateau_arrival samples of this second. */
  arrived = 0;
  arrivedOk = 0;
  arrivedErrors: Partial<Record<ErrorKind, number>> = {};
  readonly names = new Map<string, NameTally>();
  private lastKey: string | null = null;
  private lastTally: NameTally | null = null;

  constructor(private readonly spareNames: NameTally[]) {}

  get tS(): number {
    return this.b.tS;
  }

  reset(tS: number): this {
    this.b.reset(tS);
    this.iterations = this.arrived = this.arrivedOk = 0;
    this.iterationsKnown = this.iterationsFailed = 0;
    this.arrivedErrors = {};
    this.iterationErrors = {};
    this.failedLeft = {};
    for (const t of this.names.values()) this.spareNames.push(t);
    this.names.clear();
    this.lastKey = this.lastTally = null;
    return this;
  }

  name(key: string): NameTally {
    // a request's http_reqs and http_req_duration come one after the other, under one name
    if (key === this.lastKey) return this.lastTally!;
    let t = this.names.get(key);
    if (t === undefined) {
      t = (this.spareNames.pop() ?? new NameTally()).reset();
      this.names.set(key, t);
    }
    this.lastKey = key;
    this.lastTally = t;
    return t;
  }

  /**
   * An http_reqs sample: the second's requests, and its name's (key: names.ts; null: no name tag).
   * `named`: results are by name, so its error samples carry the key. Its kind when it failed, else null.
   */
  request(p: K6Point, key: string | null, named = false): ErrorKind | null {
    const b = this.b;
    const t = key === null ? null : this.name(key);
    b.completed += p.value;
    if (t) t.completed += p.value;
    if (isOk(p.tags)) {
      b.ok += p.value;
      if (t) t.ok += p.value;
      return null;
    }
    const kind = errorKindOf(p.tags);
    // its name tells its kind of failure apart (open-bucket.ts), as natively
    b.fail(kind, p.tags.status, errorMessageOf(kind, p.tags, named ? key : null), key ?? undefined);
    t?.fail(kind, p.tags.status);
    return kind;
  }

  /** Whether a successful request of this name (key null: of any) is counted in this second. */
  hasOk(key: string | null): boolean {
    if (key === null) return this.b.ok > 0;
    const t = this.names.get(key);
    return t !== undefined && t.ok > 0;
  }

  /** plateau_check_failed: the scenario's check rejected a response k6 deemed expected, one ok request becomes a failed one. */
  checkFailed(p: K6Point, key: string | null, named = false): void {
    const b = this.b;
    // tagged other: the check could not be given what it read (verdict.ts checkFailureKind); else the target's answer
    const kind = p.tags.kind === 'other' ? 'other' : 'check';
    if (b.ok > 0) {
      b.ok--;
      b.fail(
        kind,
        undefined,
        `${kind}: ${named && key !== null ? `${key}: ` : ''}${p.tags.check ?? 'rejected by the scenario'}`,
        key ?? undefined,
      );
    }
    const t = key === null ? undefined : this.names.get(key);
    if (t !== undefined && t.ok > 0) {
      t.ok--;
      t.fail(kind, undefined);
    }
  }

  /** plateau_refused_name: a send refused for its name (its arrival's failure comes with its plateau_arrival). */
  refusedName(p: K6Point): void {
    if (this.b.refusedName === '' && p.tags.error) this.b.refusedName = p.tags.error;
    this.b.refusedNames += p.value;
  }

  /**
   * A plateau_unsent sample: arrivals of a one-request script whose request(ctx) threw: failed
   * arrivals (kind other) that sent no request (BucketRecord.requests leaves them out).
   */
  unsent(p: K6Point): void {
    const b = this.b;
    b.completed += p.value;
    b.unsent += p.value;
    b.errors.other = (b.errors.other ?? 0) + p.value;
    b.note(UNSENT_MESSAGE);
  }

  /** A plateau_arrival sample: one arrival of a mix, and a transaction's row (a one-request entry's row is its request's). */
  arrival(p: K6Point, key: string | null): void {
    if (p.tags.transaction === 'late') {
      // a send made after its transaction ended: no arrival, a failed request of its name
      if (key === null) return;
      const t = this.name(key);
      t.completed++;
      t.fail('other', undefined);
      this.b.note(`other: ${p.tags.name}: ${SEND_AFTER_END}`);
      return;
    }
    const outcome = p.tags.outcome ?? 'other';
    const ok = outcome === 'ok';
    const kind: ErrorKind = (ERROR_KINDS as readonly string[]).includes(outcome) ? (outcome as ErrorKind) : 'other';
    this.arrived++;
    if (ok) this.arrivedOk++;
    else this.arrivedErrors[kind] = (this.arrivedErrors[kind] ?? 0) + 1;
    if (key === null) return;
    if (p.tags.transaction === 'unsent') {
      // a one-request entry that failed before sending: no http_reqs sample names it, this does
      const u = this.name(key);
      u.completed++;
      u.fail(kind, undefined);
      return;
    }
    if (p.tags.transaction !== 'true') return;
    const t = this.name(key);
    t.transaction = true;
    t.completed++;
    if (ok) {
      t.ok++;
      t.duration.recordUs(p.value * 1000);
    } else t.fail(kind, undefined);
  }

  /** An `iterations` sample that named its VU and iteration: failed with the kind of its first failed request, or null. */
  iterationEnded(failed: ErrorKind | null): void {
    this.iterationsKnown++;
    if (failed === null) return;
    this.iterationsFailed++;
    this.iterationErrors[failed] = (this.iterationErrors[failed] ?? 0) + 1;
  }

  toRecord(
    source: string,
    phase: string,
    vus: { active: number; allocated: number },
    arrivals: ArrivalsFrom,
    withNames: boolean,
    /** The failedLeft of the second before (arrivals 'iterations'). */
    failedBefore: Partial<Record<ErrorKind, number>> = {},
  ): BucketRecord {
    const r = this.b.toRecord(source, phase, vus);
    this.failedLeft = {};
    if (arrivals === 'plateau_arrival') {
      r.requests = r.completed;
      r.completed = this.arrived;
      r.ok = this.arrivedOk;
      r.errors = this.arrivedErrors;
    } else if (arrivals === 'iterations') {
      r.requests = r.completed;
      r.requestsFailed = r.requests - r.ok;
      r.completed = this.iterations;
      // a second with no iteration's end takes the lower bound's path, which carries its failed requests on
      if (this.iterations > 0 && this.iterationsKnown === this.iterations) {
        r.ok = this.iterations - this.iterationsFailed;
        r.errors = this.iterationErrors;
      } else {
        const failed = addCounts(r.errors, failedBefore);
        r.ok = Math.max(0, this.iterations - sumCounts(failed));
        r.errors = cutTo(failed, r.completed - r.ok);
        for (const [k, n] of Object.entries(failed) as [ErrorKind, number][]) {
          const left = n - (r.errors[k] ?? 0);
          if (left > 0) this.failedLeft[k] = left;
        }
      }
    }
    if (withNames && this.names.size > 0) {
      const by: Record<string, NameBucket> = {};
      // defined, not assigned: a name such as __proto__ is a key like any other
      for (const [k, t] of this.names)
        Object.defineProperty(by, k, { value: t.toBucket(), enumerable: true, writable: true, configurable: true });
      r.byName = by;
    }
    return r;
  }
}

function addCounts(
  a: Partial<Record<ErrorKind, number>>,
  b: Partial<Record<ErrorKind, number>>,
): Partial<Record<ErrorKind, number>> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b) as [ErrorKind, number][]) out[k] = (out[k] ?? 0) + n;
  return out;
}

function sumCounts(c: Partial<Record<ErrorKind, number>>): number {
  let n = 0;
  for (const v of Object.values(c)) n += v ?? 0;
  return n;
}

/** The counts cut, largest kind first, so that they sum to at most `total`. */
export function cutTo(counts: Partial<Record<ErrorKind, number>>, total: number): Partial<Record<ErrorKind, number>> {
  const entries = Object.entries(counts) as [ErrorKind, number][];
  if (entries.reduce((a, [, n]) => a + n, 0) <= total) return counts;
  const out: Partial<Record<ErrorKind, number>> = {};
  let left = total;
  for (const [k, n] of entries.sort((a, b) => b[1] - a[1])) {
    const take = Math.min(n, left);
    if (take > 0) out[k] = take;
    left -= take;
  }
  return out;
}
