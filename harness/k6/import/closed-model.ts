/**
 * Whether an imported k6 run was a closed model: a constant-vus, ramping-vus, per-vu-iterations or
 * shared-iterations scenario, where each VU starts its next iteration when its last one ends, so
 * the VUs set the load and the rate of iterations started is the run's own throughput. plateau
 * judges an open model (delivery and capture against an offered rate); such a run offers none.
 *
 * The evidence is k6's two gauges, written once a second: `vus_max`, the VUs initialized, and
 * `vus`, the VUs active. A closed executor initializes its VUs before it starts (all of them for
 * the run: a ramping-vus run's highest stage) and counts a VU active for as long as the executor
 * holds it, between iterations too (lib/executor/constant_vus.go, ramping_vus.go): through a
 * constant-vus run, and through a ramping-vus run's top stage, `vus` equals `vus_max` second after
 * second. An arrival-rate executor counts a VU active only while it runs an iteration
 * (ramping_arrival_rate.go's activeVUPool, since v0.27), and its arrivals come at the times the
 * rate sets: once every VU it has is busy, the next arrival finds none free, so k6 initializes
 * another (`vus_max` grows) or drops the arrival. Every VU busy for many seconds in a row, with
 * `vus_max` unchanged and nothing dropped, is a closed model. Pure.
 *
 * Not judged (null): when the import keeps some scenarios only or the run had several (the gauges
 * count every scenario's VUs), with --open-model, or runs that never hold all their VUs busy for
 * long (a ramping-vus run of ramps only: its steps are then derived, or refused, as for any run).
 *
 * It can err: an arrival-rate run whose VUs were sized to its rate exactly (preAllocatedVUs =
 * maxVUs = rate x iteration time, no drop) can read every VU busy at each reading, k6's 1 s
 * ticker meeting its even arrivals at the same phase (10/s of 0.95 s each on 10 VUs: at half the
 * phases, those within 50 ms after an arrival). The refusal names --open-model for that.
 */
import type { BucketRecord } from '../../../analysis/types.ts';

/** Consecutive readings with every VU busy (and vus_max unchanged) that make a closed model. */
const MIN_HELD = 10;
/** Fewer VUs than this and a handful of arrivals could keep them all busy by chance. */
const MIN_VUS = 3;
/** Drops this long after the last reading with every VU busy are a per-VU iteration count cut by its maxDuration, not arrivals. */
const END_S = 2;

export interface ClosedModel {
  /** The longest run of consecutive seconds with all `vus` VUs busy, and how many readings there were. */
  heldS: number;
  readings: number;
  /** The VUs of that run. */
  vus: number;
}

/**
 * The evidence of a closed model, or null (an open model, or nothing that says otherwise).
 * `readings`: IngestStats.vusReadings ([tS, vus, vusMax, ...]); `records`: the import's buckets
 * (their drops).
 */
export function closedModelOf(readings: readonly number[], records: readonly BucketRecord[]): ClosedModel | null {
  let best = { heldS: 0, vus: 0 };
  let run = 0;
  let lastAllS = -1;
  for (let i = 0; i < readings.length; i += 3) {
    const vus = readings[i + 1];
    const max = readings[i + 2];
    const all = vus >= MIN_VUS && vus === max;
    if (all) lastAllS = readings[i];
    run = all && i > 0 && readings[i - 1] === max ? run + 1 : all ? 1 : 0;
    if (run > best.heldS) best = { heldS: run, vus };
  }
  if (best.heldS < MIN_HELD) return null;
  // drops more than END_S after the last second with every VU busy are an iteration count cut at
  // its maxDuration, VU by VU as each finishes
  if (records.some((r) => r.dropped > 0 && r.tS <= lastAllS + END_S)) return null;
  return { ...best, readings: readings.length / 3 };
}

/** What the evidence says, for the refusal and the note. */
export function closedModelText(file: string, c: ClosedModel): string {
  return `${file} looks like a closed-model run (constant-vus, ramping-vus, per-vu-iterations or shared-iterations): all ${c.vus} of its VUs were active through ${c.heldS} seconds in a row and no iteration was dropped, which an arrival rate does not do (its VUs are active only inside an iteration, and with none free it adds one or drops the arrival), so the VUs set its load and the rate of iterations started is its own throughput, not a rate it was offered`;
}

export const CLOSED_MODEL_FIX =
  'run the load as a ramping-arrival-rate scenario (plateau k6-script writes one from a plateau config); or give the step flags (--start-rate, --step-rate, --max-rate, --ramp, --hold: e.g. the throughput each VU stage reached) to import it for its tables by name and by step, its capacity then not established; if it was an arrival rate whose VUs were sized to it exactly (all busy at each reading), pass --open-model';
