/**
 * The metric names an ingest has seen, each counted, with the timing phase it records (k6's
 * http_req_* trends), looked up once a sample in the order k6 writes them.
 */
import type { Phase } from '../../../analysis/types.ts';

const PHASE_OF: Record<string, Phase> = {
  http_req_duration: 'duration',
  http_req_blocked: 'blocked',
  http_req_connecting: 'connecting',
  http_req_sending: 'sending',
  http_req_waiting: 'waiting',
  http_req_receiving: 'receiving',
};

/** PHASE_OF's own keys only (a custom metric may be called `constructor` or `toString`). */
export function phaseOf(metric: string): Phase | undefined {
  return Object.hasOwn(PHASE_OF, metric) ? PHASE_OF[metric] : undefined;
}

/** A metric name seen in the input: its count, its phase (if a phase), the metric that came after it. */
export interface MetricInfo {
  name: string;
  count: number;
  phase: Phase | undefined;
  next: MetricInfo;
}

export class MetricTable {
  /** Counted per MetricInfo; byMetric is built when read. */
  private readonly metrics = new Map<string, MetricInfo>();
  /** The MetricInfo of the previous sample; `none` (no metric's) before the first. */
  private lastMetric: MetricInfo;
  private readonly none: MetricInfo;

  constructor() {
    this.none = { name: '', count: 0, phase: undefined } as MetricInfo;
    this.none.next = this.none;
    this.lastMetric = this.none;
  }

  /**
   * The MetricInfo of a metric name. k6 writes a request's and an iteration's samples in a fixed
   * order, so the metric that followed this one's predecessor last time is tried first: one
   * compare of two constant strings, instead of a keyed lookup on every sample.
   */
  info(name: string): MetricInfo {
    const last = this.lastMetric;
    let m = last.next;
    if (m.name !== name || m === this.none) {
      m = this.metrics.get(name) ?? this.newMetric(name);
      last.next = m;
    }
    this.lastMetric = m;
    return m;
  }

  private newMetric(name: string): MetricInfo {
    const m = { name, count: 0, phase: phaseOf(name) } as MetricInfo;
    m.next = m;
    this.metrics.set(name, m);
    return m;
  }

  /** Each metric's count, in the order first seen (IngestStats.byMetric). */
  byMetric(): Record<string, number> {
    const by: Record<string, number> = {};
    // defined, not assigned: a metric called __proto__ is a key like any other
    for (const m of this.metrics.values())
      Object.defineProperty(by, m.name, { value: m.count, enumerable: true, writable: true, configurable: true });
    return by;
  }
}
