/**
 * The seconds still open to samples, oldest first, and the closed ones kept for reuse: a second
 * stays open until the newest sample is lateS past its end (bucketizer.ts, Order).
 */
import type { IngestStats } from './ingest-stats.ts';
import { K6Second } from './second.ts';
import type { NameTally } from './names.ts';

export class OpenSeconds {
  /** open[i] is second firstOpenS + i. */
  private open: K6Second[] = [];
  private firstOpenS = 0;
  private spare: K6Second[] = [];
  private readonly spareNames: NameTally[] = [];

  constructor(private readonly stats: Pick<IngestStats, 'beforeT0' | 'late'>) {}

  /** The open second tS (seconds since t0): late samples land in the oldest open one, early ones in second 0. */
  at(tS: number): K6Second {
    if (tS < 0) {
      this.stats.beforeT0++;
      tS = 0;
    }
    if (tS < this.firstOpenS) {
      this.stats.late++;
      tS = this.firstOpenS;
    }
    const i = tS - this.firstOpenS;
    while (this.open.length <= i) this.open.push(this.newSecond(this.firstOpenS + this.open.length));
    return this.open[i];
  }

  /** The open second before sec, or null when sec is the oldest open one. */
  before(sec: K6Second): K6Second | null {
    const i = sec.tS - this.firstOpenS;
    return i > 0 ? this.open[i - 1] : null;
  }

  /** Every open second, oldest first. */
  all(): readonly K6Second[] {
    return this.open;
  }

  /** Closes every second before `tS`, silent ones included: each goes to `close`, then is kept for reuse. */
  closeBefore(tS: number, close: (sec: K6Second) => void): void {
    while (this.firstOpenS < tS && (this.open.length > 0 || tS !== Infinity)) {
      const sec = this.open.shift() ?? this.newSecond(this.firstOpenS);
      close(sec);
      this.firstOpenS++;
      this.spare.push(sec);
    }
  }

  private newSecond(tS: number): K6Second {
    return (this.spare.pop() ?? new K6Second(this.spareNames)).reset(tS);
  }
}
