/**
 * The run's headline texts, shared by the renderers: the capacity, the stop line and the peak,
 * each never saying more than the evidence establishes.
 */
import { fmtInt, fmtPercent, fmtRate, stepNo } from '../analysis/format.ts';
import type { RunResult } from '../analysis/types.ts';
import { whereCutAfterLimit, establishedCapacity } from '../analysis/interrupted-stop.ts';
import { decidingSteps, heldAfterFailure } from '../analysis/deciding-steps.ts';
import { cutAbovePeak } from '../analysis/peak.ts';
import { kneeMixDrift, peakMixDrift } from '../analysis/peak-mix.ts';
import { MAX_NAMES } from '../analysis/names-limit.ts';
import { rateUnit } from './cells.ts';
import { kneeTopologyClause } from './topology-text.ts';
import { unsteadyStep } from '../analysis/topology-unsteady.ts';

/**
 * The headline, never more than the evidence: "400.0 req/s (step 3)" where a step failed at the
 * target past the knee; "at least ..." where every planned step held; "not established (at least
 * ... held; why)" where the run could not find the limit.
 */
export function capacityText(run: RunResult): string {
  const unit = rateUnit(run);
  const capacity = establishedCapacity(run);
  if (capacity !== null) {
    // a held knee's entries each kept up within the delivery bound, so its mix can drift from the weights
    const drift = kneeMixDrift(run);
    const mix =
      drift === null
        ? ''
        : `; its window served "${drift.name}" at ${fmtPercent(drift.served)} of its ended arrivals against a weight of ${fmtPercent(drift.weight)}: the capacity is of the mix it served`;
    return `${fmtRate(capacity)} ${unit} (step ${run.kneeStep === null ? '?' : stepNo(run.kneeStep)}${kneeTopologyClause(run)}${mix})`;
  }
  const held = run.heldAtLeastPerSec ?? null;
  if (held === null && run.stopReason === 'closed-model')
    return 'not established: a closed-model k6 run: its VUs set the load, no rate was offered';
  if (held === null && run.stopReason === 'target-unreachable')
    return 'not established: the target stopped accepting connections (refused) in the first step';
  if (held === null && run.stopReason === 'topology-unsteady') return `not established: ${unsteadyWords(run)}`;
  if (held === null && run.stopReason === 'scenario-errors')
    return "not established: the scenario's own errors failed the first step";
  if (held === null)
    return run.stopReason.endsWith('-failed')
      ? `not established: ${stopLabel(run.stopReason)}`
      : 'not established: no step held';
  if (run.stopReason === 'max-rate-reached') {
    // a rate whose every attempt ran while the topology changed was measured by none: not "held"
    const deciding = new Set(decidingSteps(run.steps).map((s) => s.index));
    const out = [...new Set(run.steps.map((s) => s.index))].filter(
      (i) => !deciding.has(i) && run.steps.every((s) => s.index !== i || s.contaminated),
    );
    const except = out.length
      ? ` but ${out.map((i) => `step ${stepNo(i)}`).join(', ')}, left out (its topology changed)`
      : '';
    return `at least ${fmtRate(held)} ${unit} (every planned step held${except}; raise the top rate${kneeTopologyClause(run)})`;
  }
  return `not established (at least ${fmtRate(held)} ${unit} held; ${notEstablishedWhy(run)})`;
}

/** Why a run that held some steps did not establish its capacity, in a few words. */
function notEstablishedWhy(run: RunResult): string {
  const bad = run.steps.find((s) => s.generatorBound && !s.transient);
  if (run.interrupted) return 'the run was interrupted before its limit was confirmed';
  if (run.stopReason === 'error' && run.steps.some((s) => s.refusedNames !== undefined))
    return 'plateau refused names the scenario sent, and failed their arrivals itself';
  if (run.stopReason === 'error' && run.steps.some((s) => s.namesSpread !== undefined))
    return `the scenario's names, spread over the engine threads, passed ${MAX_NAMES} together`;
  if (run.stopReason === 'closed-model') return 'a closed-model k6 run: its VUs set the load, no rate was offered';
  if (run.stopReason === 'unconfirmed')
    return heldAfterFailure(decidingSteps(run.steps)) !== null
      ? 'a step failed, but a later one held: the failure was no limit'
      : 'a step failed once, and no later step confirmed it';
  if (run.stopReason === 'target-unreachable')
    return 'the target stopped accepting connections (refused) in the step that failed: an outage, not a limit';
  if (run.stopReason === 'scenario-errors')
    return "the scenario's own errors (kind other) failed the step that failed: no limit of the target";
  if (run.stopReason === 'topology-unsteady') return unsteadyWords(run);
  if (run.stopReason === 'generator-bound' || bad)
    return `the load generator could not drive ${bad ? `step ${stepNo(bad.index)}` : 'the next step'}`;
  if (run.stopReason.endsWith('-failed')) return stopLabel(run.stopReason);
  if (run.stopReason === 'error') return 'the run ended before a step failed at the target';
  return 'no step failed at the target';
}

/** "the topology changed during every attempt at step 2: it never held still". */
function unsteadyWords(run: RunResult): string {
  const at = unsteadyStep(run.steps)?.index ?? run.steps.length - 1;
  return `the topology changed during every attempt at step ${stepNo(at)}: it never held still`;
}

/**
 * The banner of a run cut short after its limit was confirmed (interrupted-stop.ts
 * whereCutAfterLimit); null for any other run.
 */
export function cutShortText(run: RunResult): string | null {
  const where = whereCutAfterLimit(run);
  return where === null
    ? null
    : `the run was interrupted after its limit was confirmed (${where}): the capacity stands; the steps after the cut were not run.`;
}

/** The stop line's label: INTERRUPTED before the limit was confirmed, the limit's reason "(then cut short)" after it. */
export function stopLineLabel(run: RunResult): string {
  if (whereCutAfterLimit(run) !== null) return `${stopLabel(run.stopReason)} (then cut short)`;
  return run.interrupted ? 'INTERRUPTED' : stopLabel(run.stopReason);
}

/** A stop reason as the reports print it: "preflight failed" for "preflight-failed", others as they are. */
export function stopLabel(reason: string): string {
  return reason.endsWith('-failed') ? reason.replace(/-failed$/, ' failed') : reason;
}

/**
 * "1,234.5 req/s (step 5)" (arrivals/s for a run with transactions) or "–" without a whole steady
 * window; a step cut short that read more is named beside it, not counted (analysis/peak.ts):
 * "300.0 req/s (step 2; step 3, cut short 4 s into its steady window, read 340.0 req/s: not counted)".
 */
export function peakText(run: RunResult): string {
  const cut = cutAbovePeak(run);
  const note =
    cut === null
      ? ''
      : `step ${stepNo(cut.index)}${(cut.attempt ?? 1) > 1 ? `'s attempt ${cut.attempt}` : ''}, cut short ${fmtInt(cut.steadyS)} s into its steady window, read ${fmtRate(cut.throughputPerSec)} ${rateUnit(run)}: not counted`;
  if (run.peakStep === null) return note === '' ? '–' : `– (${note})`;
  // a window that served its entries off their weights measured another mix (analysis/peak-mix.ts)
  const drift = peakMixDrift(run);
  const mix =
    drift === null
      ? ''
      : `; its window served "${drift.name}" at ${fmtPercent(drift.served)} of its ended arrivals against a weight of ${fmtPercent(drift.weight)}: the peak is of the mix it served`;
  return `${fmtRate(run.peakPerSec)} ${rateUnit(run)} (step ${stepNo(run.peakStep)}${note === '' ? '' : `; ${note}`}${mix})`;
}
