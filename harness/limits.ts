/**
 * Safety caps (config `limits`): the most load a run may offer, for how long, and how many
 * requests may be in flight at once. A plan over a cap is refused before any load (validation
 * problems naming the field); at run time the VUs never exceed maxInFlight (each VU has at most one
 * request in flight) and a run whose reruns would outlast maxDurationS is stopped when it reaches it.
 */
import type { PlateauConfig } from './config/schema.ts';
import type { Interrupt } from './pipeline/interrupt.ts';
import { realClock, type Clock, type Timer } from './clock.ts';
import { engineKind } from './engine/create.ts';
import { warmupScheduleS } from './pipeline/warmup.ts';
import { NO_FLAGS, type Given, type Problem } from './config/given.ts';

export type LimitProblem = Problem;

/** Seconds of the warmup schedule (harness/pipeline/warmup.ts); none for an engine without a warmup. */
function warmupS(c: PlateauConfig): number {
  return c.warmup.enabled && engineKind(c).capabilities.warmup ? warmupScheduleS(c) : 0;
}

/**
 * Number of steps start, start + step, ... <= max (the loop of plan.ts stepRates, counted without
 * building the list), stopping early once past `bound`: a rate list of a billion steps is refused,
 * not built.
 */
export function stepCount(s: PlateauConfig['steps'], bound = 1e6): number {
  let n = 0;
  while (n <= bound && s.startPerSec + n * s.stepPerSec <= s.maxPerSec + 1e-9) n++;
  return n;
}

/** Longest time the plan offers load, in seconds: warmup at its maximum plus every step's ramp and hold. */
export function plannedLoadS(c: PlateauConfig): number {
  return warmupS(c) + stepCount(c.steps) * (c.steps.rampS + c.steps.holdS);
}

/** Every way the config exceeds its limits, each naming the field to change (the flag, where one set it: `given`). */
export function limitProblems(c: PlateauConfig, given: Given = NO_FLAGS): LimitProblem[] {
  const { maxRatePerSec, maxDurationS, maxInFlight } = c.limits;
  const out: LimitProblem[] = [];
  const name = (field: string) => given.name(field);
  if (c.steps.maxPerSec > maxRatePerSec) {
    out.push(
      given.problem(
        'steps.maxPerSec',
        c.steps.maxPerSec,
        `arrivals/s exceeds limits.maxRatePerSec ${maxRatePerSec}: lower ${name('steps.maxPerSec')}, or raise limits.maxRatePerSec if the target can take it`,
      ),
    );
  }
  const warmupRate = c.warmup.ratePerSec;
  if (warmupRate !== undefined && warmupRate > maxRatePerSec) {
    out.push({
      field: 'warmup.ratePerSec',
      message: `${warmupRate} arrivals/s exceeds limits.maxRatePerSec ${maxRatePerSec}: lower warmup.ratePerSec`,
    });
  }
  const loadS = plannedLoadS(c);
  if (loadS > maxDurationS) {
    const n = stepCount(c.steps);
    const steps =
      n > 1e6
        ? 'over a million steps'
        : `${n} step${n === 1 ? '' : 's'} x (${c.steps.rampS} s ramp + ${c.steps.holdS} s hold)`;
    out.push({
      field: 'steps',
      message: `the plan offers load for up to ${n > 1e6 ? 'more than a million' : loadS} s (${steps}${warmupS(c) ? ` + ${warmupS(c)} s warmup` : ''}), over limits.maxDurationS ${maxDurationS}: raise ${name('steps.stepPerSec')}, lower ${name('steps.maxPerSec')} or ${name('steps.holdS')}, or raise limits.maxDurationS`,
    });
  }
  for (const key of ['preAllocated', 'max'] as const) {
    const v = c.vus[key];
    if (v !== undefined && v > maxInFlight) {
      out.push(
        given.problem(
          `vus.${key}`,
          v,
          `VUs exceeds limits.maxInFlight ${maxInFlight} (one request in flight per VU): lower ${name(`vus.${key}`)} or raise limits.maxInFlight`,
        ),
      );
    }
  }
  return out;
}

/**
 * Stops a run that reaches limits.maxDurationS of load (reruns of failed steps can extend a plan
 * that fitted). It counts the seconds load runs, each phase (the warmup, a leg of the steps) from
 * start() to end(), at most to the phase's scheduled end, and not the time between them (RTT,
 * the engine's start, connecting, the threads stage, the gap before a rerun), so a plan whose load
 * fits the cap, as validation and `plateau plan` judge it, is never cut by it (docs/decisions/083).
 * The stop goes through the interrupt, so the run ends as an interrupted one does: load stops,
 * the report is written.
 */
export class DurationCap {
  private timer: Timer | null = null;
  private usedMs = 0;
  private phase: { startMs: number; endMs: number } | null = null;
  reached = false;

  constructor(
    private readonly maxDurationS: number,
    private readonly interrupt: Interrupt,
    private readonly log: (line: string) => void,
    private readonly clock: Clock = realClock,
  ) {}

  /**
   * Load runs from startMs (now or later: a leg starts on a whole second) to endMs at most, on the
   * clock's time: stopped when the cap's budget runs out before endMs (at once when it is spent).
   */
  start(startMs: number, endMs: number): void {
    this.end();
    this.phase = { startMs, endMs };
    const leftMs = this.maxDurationS * 1000 - this.usedMs;
    // whole ms: a schedule's end less its start on performance.now()'s scale is off by a float's last digits
    if (Math.round(endMs - startMs) <= leftMs) return;
    if (leftMs <= 0) return this.stop();
    const delayMs = Math.max(0, startMs + leftMs - this.clock.now());
    // setTimeout's longest delay
    this.timer = this.clock.setTimeout(() => this.stop(), Math.min(delayMs, 2 ** 31 - 1));
    this.timer.unref();
  }

  /** The phase's load ended: its seconds (to now, at most to its scheduled end) count against the cap. */
  end(): void {
    this.clock.clear(this.timer);
    this.timer = null;
    if (!this.phase) return;
    const { startMs, endMs } = this.phase;
    this.usedMs += Math.round(Math.max(0, Math.min(this.clock.now(), endMs) - startMs));
    this.phase = null;
  }

  private stop(): void {
    // a Ctrl-C came first: the cap stops nothing, and the run reads as interrupted by it
    if (this.interrupt.interrupted) return;
    this.reached = true;
    this.log(`limits.maxDurationS: ${this.maxDurationS} s of load reached; stopping the load and writing the report`);
    this.interrupt.trigger();
  }
}
