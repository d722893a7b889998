/**
 * A model of a target, for simulated runs: a server with a capacity (req/s) and a service time,
 * whose overload takes one of three shapes, served as a fluid (counts per tick, never one object
 * per request). With N requests in the system, S the service time and k = C x S the concurrency
 * at capacity (its "slots"), completions per second are
 *
 *   queue:    mu(N) = min(N, k) / S              throughput flat at C; latency N / C past k
 *   reject:   mu(N) = min(N, k) / S, N <= ceil(k)  the excess is answered at once with a 503
 *   collapse: mu(N) = N / (S (1 + b N (N - 1)))  Gunther's USL with alpha = 0: the peak C is at
 *             N* = 1/sqrt(b); mu(N*) = C gives N* = k + sqrt(k^2 - k), b = 1 / N*^2
 *
 * and the latency of what completes is Little's law on the moment's state, W = N / mu(N) (>= S).
 * Optional: a cold period (the first forS seconds of the target's life run `slowdown` times
 * slower: S x slowdown, C / slowdown) and a topology change (at atS the instance count goes from
 * `from` to `to`, and k with it). Time is the caller's (ms on its clock); the target has no timer.
 */

export type OverloadKind = 'queue' | 'reject' | 'collapse';

export interface ModelTargetOptions {
  /** Most requests per second the target completes (collapse: at its peak concurrency). */
  capacityPerSec: number;
  /** Time one request takes with nothing queued (ms). */
  serviceMs: number;
  overload: OverloadKind;
  /** reject: how long the 503 of a request over capacity takes (ms; default 1). */
  rejectMs?: number;
  /** The first forS seconds run `slowdown` times slower (a JIT, caches, a pool still filling). */
  cold?: { forS: number; slowdown: number };
  /** At atS the instances go from `from` to `to` (replicas scaled): capacity scales with them. */
  topology?: { atS: number; from: number; to: number };
}

/** What the target's own metrics would say, in ServerSample's fields. */
export interface ModelReading {
  requestsCount: number;
  requestsSumS: number;
  requestsMaxS: null;
  poolActive: null;
  poolPending: null;
  poolMax: null;
  gauges: Record<string, number>;
  topology: number | null;
}

/** The completions of one tick: how many, and the latency (ms) they had. */
export interface Served {
  completed: number;
  latencyMs: number;
}

export class ModelTarget {
  /** Requests admitted and not yet completed. */
  inSystem = 0;
  /** Up to when (ms on the caller's clock) the target has been simulated. */
  private lastMs: number;
  /** Fractional completions carried to the next tick (a fluid, counted in whole requests). */
  private carry = 0;
  private servedCount = 0;
  private servedSumS = 0;

  /** @param startMs the target's birth on the caller's clock: cold and topology times count from it. */
  constructor(
    readonly o: ModelTargetOptions,
    private readonly startMs = 0,
  ) {
    const problems = modelProblems(o);
    if (problems.length) throw new RangeError(`model target: ${problems.join('; ')}`);
    this.lastMs = startMs;
  }

  /** Instances at tMs (1 without a topology change). */
  instancesAt(tMs: number): number {
    const t = this.o.topology;
    if (!t) return 1;
    return (tMs - this.startMs) / 1000 < t.atS ? t.from : t.to;
  }

  private slowdownAt(tMs: number): number {
    const c = this.o.cold;
    return c && (tMs - this.startMs) / 1000 < c.forS ? c.slowdown : 1;
  }

  /** Service time at tMs (s). */
  private serviceSAt(tMs: number): number {
    return (this.o.serviceMs * this.slowdownAt(tMs)) / 1000;
  }

  /** Concurrency at capacity, k = C x S (the cold slowdown cancels out; the topology scales it). */
  slotsAt(tMs: number): number {
    const t = this.o.topology;
    const scale = t ? this.instancesAt(tMs) / t.from : 1;
    return (this.o.capacityPerSec * this.o.serviceMs * scale) / 1000;
  }

  /** Completions per second with n in the system at tMs. */
  rateAt(n: number, tMs: number): number {
    const s = this.serviceSAt(tMs);
    const k = this.slotsAt(tMs);
    if (n <= 0) return 0;
    if (this.o.overload !== 'collapse') return Math.min(n, k) / s;
    if (n < 1) return n / s;
    const nStar = k + Math.sqrt(k * k - k);
    const beta = 1 / (nStar * nStar);
    return n / (s * (1 + beta * n * (n - 1)));
  }

  /**
   * Offers n requests at tMs. Returns how many were admitted and how many were answered at once
   * with a 503 (reject only: those over its slots).
   */
  offer(n: number, tMs: number): { admitted: number; rejected: number } {
    if (this.o.overload !== 'reject') {
      this.inSystem += n;
      return { admitted: n, rejected: 0 };
    }
    // whole requests in service: the last slot may be part of one (k = 1.5 serves at 1.5 / S)
    const room = Math.max(0, Math.ceil(this.slotsAt(tMs) - 1e-9) - this.inSystem);
    const admitted = Math.min(n, room);
    this.inSystem += admitted;
    return { admitted, rejected: n - admitted };
  }

  /** Serves from the last simulated moment to tMs; the completions of that interval and their latency. */
  serveUntil(tMs: number): Served {
    const dtS = (tMs - this.lastMs) / 1000;
    const n = this.inSystem;
    const mu = this.rateAt(n, this.lastMs);
    const latencyMs = mu > 0 ? Math.max(this.serviceSAt(this.lastMs), n / mu) * 1000 : 0;
    this.lastMs = Math.max(this.lastMs, tMs);
    if (n === 0 || dtS <= 0) {
      if (n === 0) this.carry = 0;
      return { completed: 0, latencyMs };
    }
    const due = this.carry + mu * dtS;
    const completed = Math.min(n, Math.floor(due));
    this.carry = completed === n ? 0 : due - completed;
    this.inSystem -= completed;
    this.servedCount += completed;
    this.servedSumS += (completed * latencyMs) / 1000;
    return { completed, latencyMs };
  }

  /** Lets time pass with no client watching (between legs): what was in the system drains unseen. */
  idleUntil(tMs: number, tickMs: number): void {
    while (this.lastMs + tickMs <= tMs && this.inSystem > 0) this.serveUntil(this.lastMs + tickMs);
    this.lastMs = Math.max(this.lastMs, tMs);
  }

  /** The target's metrics at tMs: requests served so far (Spring's _count/_sum) and its instance count. */
  reading(tMs: number): ModelReading {
    return {
      requestsCount: this.servedCount,
      requestsSumS: this.servedSumS,
      requestsMaxS: null,
      poolActive: null,
      poolPending: null,
      poolMax: null,
      gauges: {},
      topology: this.o.topology ? this.instancesAt(tMs) : null,
    };
  }

  /** The service time the model's ticks must resolve (ms): the shortest it takes. */
  get shortestServiceMs(): number {
    return this.o.serviceMs;
  }
}

/** Every way the options cannot describe a target, each naming the field and the fix. */
export function modelProblems(o: ModelTargetOptions): string[] {
  const out: string[] = [];
  if (!(o.capacityPerSec > 0)) out.push(`capacityPerSec is ${o.capacityPerSec}: give a rate above 0`);
  if (!(o.serviceMs > 0)) out.push(`serviceMs is ${o.serviceMs}: give a service time above 0 ms`);
  if (!['queue', 'reject', 'collapse'].includes(o.overload))
    out.push(`overload is ${JSON.stringify(o.overload)}: use 'queue', 'reject' or 'collapse'`);
  const k = (o.capacityPerSec * o.serviceMs) / 1000;
  if (o.overload === 'collapse' && k < 1)
    out.push(
      `collapse needs capacityPerSec x serviceMs >= 1 request in service at the peak (it is ${k}): raise either`,
    );
  if (o.cold && !(o.cold.forS >= 0 && o.cold.slowdown >= 1))
    out.push(`cold is ${JSON.stringify(o.cold)}: forS must be >= 0 and slowdown >= 1`);
  if (o.topology && !(o.topology.from >= 1 && o.topology.to >= 1 && o.topology.atS >= 0))
    out.push(`topology is ${JSON.stringify(o.topology)}: from and to must be >= 1 instance, atS >= 0`);
  if (o.rejectMs !== undefined && !(o.rejectMs > 0)) out.push(`rejectMs is ${o.rejectMs}: give a time above 0 ms`);
  return out;
}
