/**
 * The plan and the rules it is judged by: steps on the load phase's clock, the stop rule's
 * thresholds, the generator's bounds and the decision policy.
 * Types only, no I/O.
 */
/** One step of the plan. All times are seconds since the start of the load phase. */
export interface StepPlan {
  index: number;
  ratePerSec: number;
  rampStartS: number;
  holdStartS: number;
  holdEndS: number;
  steadyStartS: number;
  steadyEndS: number;
}

/**
 * The unit of a run's rates: arrivals/s where an entry of its traffic is a transaction (an arrival
 * then sends several requests, and the rates, the steps and the capacity count arrivals); req/s
 * otherwise, where an arrival is one request.
 */
export type RateUnit = 'req/s' | 'arrivals/s';

/** The thresholds of the stop rule. */
export interface Rules {
  /** A step holds only when steady throughput / target rate is at least this (0.90). */
  deliveryMin: number;
  /** ... and when throughput gained / rate added is at least this (0.60). */
  captureMin: number;
  /** Samples below which a percentile is marked unreliable: n * (1 - q) must reach this tail count. */
  minTailSamples: number;
  /**
   * The unit the decision texts (reasons, stop detail, objective) give rates in: arrivals/s when
   * an arrival of the run's traffic is a transaction. Not a threshold and not configured: set from
   * the run's traffic (analysis/format.ts rateUnitOf); absent, req/s.
   */
  rateUnit?: RateUnit;
  /**
   * The successes counted are a lower bound (an imported k6 run of iterations of several requests
   * that did not name their VU and iteration: ok = iterations - failed requests): each delivery
   * reads at least, and each failure share at most, its figure. Set from the traffic, like rateUnit.
   */
  okLowerBound?: true;
  /** An imported k6 run (plateau import k6): the fixes its texts give are the k6 script's, not plateau's config. */
  imported?: true;
  /**
   * An imported k6 run of a closed model: its steps' rates are the flags', never offered, so a
   * step's throughput is not capped at them (decision 043) nor said to exceed them. From the input.
   */
  closedModel?: true;
  /**
   * A mix's entries and their shares of the arrivals: a step holds only where each entry keeps up
   * with its share (entry-delivery.ts). Set from the traffic, like rateUnit; absent, one entry.
   */
  mix?: readonly MixShare[];
}

/** One entry of a mix and its share of the arrivals (its weight over the weights' sum). */
export interface MixShare {
  name: string;
  share: number;
}

/** Bounds on the generator's symptoms, from config.verdicts. */
export interface GeneratorBounds {
  /** Scheduler lag p99 above which the generator is late (ms). */
  lagP99MaxMs: number;
  /** Event-loop delay above which the generator's thread is saturated (ms). */
  loopDelayMaxMs: number;
  /**
   * Event-loop utilisation (0..1) of the generator's busiest thread, averaged over the window,
   * above which it is saturated even if it still kept its schedule; also the bound on the share of
   * its CPUs the generator's process used (k6's, under the k6 engine). Optional: older configs.
   */
  generatorBusyMax?: number;
  /** How much the tail may grow over the first step's and still count as low. */
  tailFactor: number;
}

/** Everything the step decision depends on besides the evidence: the run's rules and bounds, stored in run.json. */
export interface DecisionPolicy {
  rules: Rules;
  bounds: GeneratorBounds;
  confirmFailedStep: boolean;
  rerunContaminated: boolean;
  /** Highest maxVUs a rerun may ask for. */
  maxVUsBound: number;
}
