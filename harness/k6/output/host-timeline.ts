/**
 * The host's figures (a CPU quota's throttled time, CPU steal, k6's share of its CPUs: HostSampler) for the k6 engine,
 * whose seconds are k6's timestamps, not plateau's timers. plateau samples the counters once a
 * second on the wall clock while k6 runs (k6 shares the machine and, as plateau's child, its
 * cgroup); each second of k6's output, when it closes, takes its share of the samples it
 * overlaps: throttled ms pro rata, the shares as overlap-weighted means. k6 stamps its samples with
 * the same wall clock, so the two line up; a replayed output from another time overlaps nothing
 * and its seconds carry no host figures, as an imported run's do not.
 */
import type { HostSample } from '../../engine/host-sampler.ts';
import type { OpenBucket } from '../../engine/open-bucket.ts';

interface Span extends HostSample {
  fromMs: number;
  toMs: number;
}

/** An overlap-weighted mean of one share. */
class Mean {
  private sum = 0;
  private ms = 0;
  add(share: number | null, overlapMs: number): void {
    if (share !== null) {
      this.sum += share * overlapMs;
      this.ms += overlapMs;
    }
  }
  /** To 0.001 (the samples' precision); -1 when nothing was read. */
  get value(): number {
    return this.ms > 0 ? Math.round((this.sum / this.ms) * 1000) / 1000 : -1;
  }
}

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
    this.spans.push({ ...s, fromMs: this.markMs, toMs: t });
    this.markMs = t;
  }

  /**
   * Puts the figures of [fromMs, toMs) on the bucket (left unread, -1, where no sample covers
   * it, as a second after now or before the first sample) and forgets the samples that end within
   * it: seconds close in order.
   */
  stamp(b: OpenBucket, fromMs: number, toMs: number): void {
    // a second that closes before the once-a-second timer has sampled up to its end (the timer late
    // on a busy machine, the line that closed it read first) takes a sample now: left unread, it had
    // looked as if the host were never sampled while k6 ran
    if (this.markMs < toMs) this.take();
    let throttled = 0;
    let throttledRead = false;
    const steal = new Mean();
    const cpu = new Mean();
    for (const s of this.spans) {
      const overlapMs = Math.min(toMs, s.toMs) - Math.max(fromMs, s.fromMs);
      if (overlapMs <= 0) continue;
      if (s.throttledMs !== null) {
        throttled += (s.throttledMs * overlapMs) / (s.toMs - s.fromMs);
        throttledRead = true;
      }
      steal.add(s.cpuSteal, overlapMs);
      cpu.add(s.processCpu, overlapMs);
    }
    if (throttledRead) b.throttledMs = Math.round(throttled * 10) / 10;
    b.cpuSteal = steal.value;
    b.processCpu = cpu.value;
    if (this.spans.length > 0 && this.spans[0].toMs <= toMs) this.spans = this.spans.filter((s) => s.toMs > toMs);
  }
}
