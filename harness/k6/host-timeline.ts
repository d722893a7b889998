/**
 * The host's figures (a CPU quota's throttled time, CPU steal: HostSampler) for the k6 engine,
 * whose seconds are k6's timestamps, not plateau's timers. plateau samples the counters once a
 * second on the wall clock while k6 runs (k6 shares the machine and, as plateau's child, its
 * cgroup); each second of k6's output, when it closes, takes its share of the samples it
 * overlaps: throttled ms pro rata, steal as the overlap-weighted mean. k6 stamps its samples with
 * the same wall clock, so the two line up; a replayed output from another time overlaps nothing
 * and its seconds carry no host figures, as an imported run's do not.
 */
import type { HostSample } from '../engine/host-sampler.ts';
import type { OpenBucket } from '../engine/open-bucket.ts';

interface Span { fromMs: number; toMs: number; throttledMs: number | null; cpuSteal: number | null }

export class HostTimeline {
  private spans: Span[] = [];
  private markMs: number;

  constructor(
    private readonly sampler: { sample(): HostSample },
    private readonly nowMs: () => number = Date.now,
  ) {
    this.markMs = nowMs();
  }

  /** Samples the counters since the previous call (the engine's timer, once a second). */
  take(): void {
    const t = this.nowMs();
    if (t <= this.markMs) return;
    const s = this.sampler.sample();
    this.spans.push({ fromMs: this.markMs, toMs: t, throttledMs: s.throttledMs, cpuSteal: s.cpuSteal });
    this.markMs = t;
  }

  /**
   * Puts the figures of [fromMs, toMs) on the bucket (left unread, -1, where no sample covers
   * it) and forgets the samples that end within it: seconds close in order.
   */
  stamp(b: OpenBucket, fromMs: number, toMs: number): void {
    let throttled = 0;
    let throttledRead = false;
    let steal = 0;
    let stealMs = 0;
    for (const s of this.spans) {
      const overlapMs = Math.min(toMs, s.toMs) - Math.max(fromMs, s.fromMs);
      if (overlapMs <= 0) continue;
      if (s.throttledMs !== null) { throttled += (s.throttledMs * overlapMs) / (s.toMs - s.fromMs); throttledRead = true; }
      if (s.cpuSteal !== null) { steal += s.cpuSteal * overlapMs; stealMs += overlapMs; }
    }
    if (throttledRead) b.throttledMs = Math.round(throttled * 10) / 10;
    if (stealMs > 0) b.cpuSteal = Math.round((steal / stealMs) * 1000) / 1000;
    if (this.spans.length > 0 && this.spans[0].toMs <= toMs) this.spans = this.spans.filter((s) => s.toMs > toMs);
  }
}
