/**
 * Time zero: the plan's t = 0 is the start of k6's scenario. k6 writes `vus`/`vus_max` once a
 * second from the start of the test (a 1 s ticker), so t0 = first `vus` point - 1000 ms (within
 * ~10 ms on the fixtures). Without `vus` points t0 falls back to the earliest iteration start
 * (time - iteration_duration) seen in the first seconds; an explicit t0 overrides both.
 */
import type { IngestStats } from './ingest-stats.ts';
import type { K6Point } from './point.ts';
import { lifecycle } from './selection.ts';

/** Without `vus` points, how much data (ms of sample time) to see before settling t0. */
const T0_FALLBACK_SPAN_MS = 3000;

/** The first sample came more than BucketizerOptions.maxLeadS after the t0 given. */
export class T0TooEarly extends Error {
  constructor(
    readonly leadS: number,
    readonly firstMs: number,
  ) {
    super(`the first sample came ${Math.round(leadS)} s after t0`);
  }
}

/** A first sample too long after a given t0 (maxLeadS): stop before filling the seconds between. */
export function leadCheck(t0Ms: number | undefined, maxLeadS: number | undefined, firstMs: number): void {
  if (t0Ms !== undefined && maxLeadS !== undefined && firstMs - t0Ms > maxLeadS * 1000)
    throw new T0TooEarly((firstMs - t0Ms) / 1000, firstMs);
}

/** t0 once settled, how it was found, and the samples held until then (to be counted now). */
export interface SettledT0 {
  t0Ms: number;
  from: IngestStats['t0From'];
  held: K6Point[];
}

/** Holds the samples that come before t0 is known, and settles it from them. */
export class T0Finder {
  private held: K6Point[] = [];
  /** Before t0 is settled: the first `vus` point less a second, and the last setup() sample. */
  private vusT0: number | null = null;
  private setupEndMs = -Infinity;
  /** The earliest held sample (setup()'s samples are not held). */
  private heldFirstMs = Infinity;
  /** A sample of the scenarios' iterations (any scenario) has been seen. */
  private iterated = false;

  constructor(private readonly stats: IngestStats) {}

  /**
   * Points wait here until t0 is known. k6 writes its first `vus` point a second after the test
   * starts, but setup() runs before the scenarios do, with `vus` points all along: t0 is settled
   * once a scenario's own sample has come too, at the later of that second and setup()'s last
   * sample (the votacao fixture: 0.24 s later; a setup() of 30 s, 30 s later). setup()'s own
   * samples are skipped here, never held. `stampMidMs`: added to a sample's time to get the middle
   * of where it can have happened. Returns t0 once settled, else null.
   */
  hold(p: K6Point, stampMidMs: number): SettledT0 | null {
    const g = p.tags.group;
    if (g !== undefined && g.charCodeAt(0) === 58 /* : */ && lifecycle(p, g, '::setup')) {
      this.setupEndMs = Math.max(this.setupEndMs, p.timeMs);
      this.stats.skipped++;
      return null;
    }
    this.held.push(p);
    if (p.timeMs < this.heldFirstMs) this.heldFirstMs = p.timeMs;
    if (p.metric === 'vus') this.vusT0 ??= p.timeMs - 1000;
    // any sample that is not setup()'s says setup() is over, whatever scenario it belongs to
    else if (p.metric !== 'vus_max') this.iterated = true;
    if (this.vusT0 !== null && this.iterated) return this.atStart(stampMidMs);
    if (this.vusT0 === null && this.stats.lastMs! - this.heldFirstMs > T0_FALLBACK_SPAN_MS)
      return this.settle(this.fallbackT0(stampMidMs));
    return null;
  }

  /** t0 from the first `vus` point and the end of setup(), or from the iterations without either. */
  atStart(stampMidMs: number): SettledT0 {
    if (this.vusT0 === null) return this.settle(this.fallbackT0(stampMidMs));
    if (this.setupEndMs > this.vusT0) return this.settle(this.setupEndMs, 'setup-end');
    return this.settle(this.vusT0, 'vus');
  }

  /** Without `vus` points: the earliest iteration start or held sample, never inside setup(). */
  private fallbackT0(stampMidMs: number): number {
    if (this.held.length === 0) return Number.isFinite(this.setupEndMs) ? this.setupEndMs : (this.stats.firstMs ?? 0);
    let t0 = this.heldFirstMs;
    // any scenario's first iteration started the test, as its first held sample may be another scenario's
    for (const p of this.held)
      if (p.metric === 'iteration_duration') t0 = Math.min(t0, p.timeMs + stampMidMs - p.value);
    return Math.max(t0, this.setupEndMs);
  }

  private settle(t0Ms: number, from: IngestStats['t0From'] = 'first-iteration'): SettledT0 {
    const held = this.held;
    this.held = [];
    return { t0Ms, from, held };
  }
}
