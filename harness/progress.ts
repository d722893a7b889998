/**
 * Live progress in the terminal: one line rewritten every second on a TTY (step k of n, target vs
 * achieved, p99, errors, dropped, time left), plain periodic lines when stdout is not a TTY.
 */
import type { BucketRecord, RateUnit, StepPlan, StepResult } from '../analysis/types.ts';
import { sumPercentileMs } from '../analysis/histogram.ts';
import { highestOf } from '../analysis/buckets.ts';
import { fmtShare } from '../analysis/format.ts';

export interface ProgressOut {
  write(s: string): void;
  isTTY: boolean;
}

export class Progress {
  private lastPlainS = -Infinity;

  constructor(
    private readonly out: ProgressOut,
    private readonly plainEveryS = 5,
  ) {}

  info(line: string): void {
    this.clear();
    this.out.write(line + '\n');
  }

  /**
   * One second: every engine instance's bucket of it (they are summed). `steps` are the ones
   * running now (a rerun's leg is a suffix of the plan); `totalSteps` the plan's.
   */
  bucket(
    second: readonly BucketRecord[],
    steps: StepPlan[],
    durationS: number,
    label?: string,
    totalSteps = steps.length,
  ): void {
    const tS = second[0].tS;
    const sum = (pick: (r: BucketRecord) => number) => second.reduce((a, r) => a + pick(r), 0);
    const step = steps.find((s) => tS >= s.rampStartS && tS < s.holdEndS);
    const ok = sum((r) => r.ok);
    const failed = sum((r) => r.completed) - ok;
    const p99 =
      sumPercentileMs(
        second.map((r) => r.hist.duration),
        99,
      ) ?? 0;
    const where =
      label ?? (step ? `step ${step.index + 1}/${totalSteps} target ${step.ratePerSec}/s` : 'between steps');
    const busy = highestOf(second, 'busy');
    // the generator process's share of its CPUs: one source reads it (k6's, under the k6 engine)
    const cpu = highestOf(second, 'processCpu');
    const gen = `${busy !== undefined ? `  busy ${fmtShare(busy)}` : ''}${cpu !== undefined ? `  cpu ${fmtShare(cpu)}` : ''}`;
    const line = `${where}  t=${tS}s  achieved ${ok}/s  p99 ${p99.toFixed(1)} ms  errors ${failed}  dropped ${sum((r) => r.dropped)}  VUs ${sum((r) => r.vusActiveMax)}/${sum((r) => r.vusAllocated)}${gen}  left ${fmtLeft(durationS - tS - 1)}`;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[K${line}`);
    } else if (tS - this.lastPlainS >= this.plainEveryS) {
      this.lastPlainS = tS;
      this.out.write(line + '\n');
    }
  }

  stepJudged(s: StepResult, total: number, unit: RateUnit = 'req/s'): void {
    const cap = s.capture === null ? '   -' : s.capture.toFixed(2);
    const why = s.reasons.length ? `  (${s.reasons.join('; ')})` : '';
    this.info(
      `step ${s.index + 1}/${total}: ${s.ratePerSec} ${unit} offered, ${s.throughputPerSec.toFixed(1)} achieved, delivery ${s.delivery.toFixed(2)}, capture ${cap}: ${s.verdict.toUpperCase()}${why}`,
    );
  }

  private clear(): void {
    if (this.out.isTTY) this.out.write('\r\x1b[K');
  }
}

function fmtLeft(s: number): string {
  const t = Math.max(0, Math.round(s));
  return t >= 60 ? `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s` : `${t}s`;
}
