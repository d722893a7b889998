/**
 * The models section of a run, from its judged steps: Little's law per step, a USL fit to the
 * (N, X) pairs it yields, and utilisation with its queueing amplification. Pure.
 *
 * Where an arrival is several requests (a transaction, a k6 iteration of several), N is the
 * requests in flight at the target (models/little.ts requestRows), think time excluded; where a
 * step records no mean per request name to give it, the table keeps the arrivals' N and the fit is
 * withheld: fitted to arrivals in flight it would fit VUs asleep between requests (a review's
 * runs of one target and mix read predicted peaks of 209.6 and 412.3 arrivals/s, and 422.2 with
 * more think time, where the target's capacity was 150 to 154).
 */
import { fmtMs, stepList, stepNo } from '../format.ts';
import type { LittleRow, Models, StepResult } from '../types.ts';
import { littleRows, requestRows } from './little.ts';
import { fitUsl, usableUslPoint, uslFitRows, uslQueuedRows } from './usl.ts';
import { saturationPerSec, utilisationRows } from './utilisation.ts';
import { generatorInLatencies, latenciesLeftOutWhy } from '../warnings.ts';

function attemptKey(s: { index: number; attempt?: number }): string {
  return `${s.index}/${s.attempt ?? 1}`;
}

export function modelsOf(
  steps: readonly StepResult[],
  capacityPerSec: number | null,
  kneeStep: number | null,
  peakPerSec: number,
  entryNames: readonly string[] = [],
  /** A step failed at the target past the knee (the capacity established): μ is the saturation throughput, not a floor of it. */
  limitFound = true,
  /** An arrival is several requests (the run's rates are arrivals/s: a transaction, a k6 iteration of several). */
  severalPerArrival = false,
): Models {
  const byRequest = severalPerArrival ? requestRows(steps) : null;
  const requestLevel = byRequest !== null && 'rows' in byRequest;
  const little = requestLevel ? byRequest.rows : littleRows(steps, entryNames);
  const withheld = byRequest !== null && 'missing' in byRequest ? withheldNote(byRequest.missing) : null;
  // only the steps up to the knee short of a queue: there N counts waiting requests (usl.ts uslFitRows);
  // and not those whose generator stalled: the stalls are in their mean, so in their N (a user's run read R² 0.83 with two)
  const stalled = new Set(steps.filter(generatorInLatencies).map(attemptKey));
  const rows = kneeStep === null ? [] : uslFitRows(little, kneeStep);
  const left = [...new Set(rows.filter((r) => stalled.has(attemptKey(r))).map((r) => r.index))];
  const queued = uslQueuedRows(little, kneeStep);
  const leftOut = withheld !== null || kneeStep === null ? '' : leftOutText(steps, left, little, queued, kneeStep);
  const kept = rows.filter((r) => !stalled.has(attemptKey(r)));
  const { fit, note } =
    kneeStep === null
      ? { fit: null, note: 'not fitted: no step held, so there is no knee to fit up to' }
      : withheld !== null
        ? { fit: null, note: withheld }
        : fitUsl(
            kept.map((r) => ({ concurrency: r.concurrency, throughputPerSec: r.throughputPerSec })),
            uslScope(kept, leftOut !== '', limitFound, kneeStep),
          );
  const mu = saturationPerSec(capacityPerSec, peakPerSec);
  // an attempt cut short is no steady window: not the peak μ is (peak.ts), so no ρ against it either
  const cut = new Set(steps.filter((s) => s.verdict === 'incomplete').map(attemptKey));
  return {
    little,
    usl: fit,
    uslNote: note,
    ...(leftOut !== '' ? { uslLeftOut: leftOut } : {}),
    utilisationBasePerSec: mu,
    ...(mu !== null && !limitFound ? { utilisationBaseAtLeast: true as const } : {}),
    utilisation: utilisationRows(
      little.filter((r) => !cut.has(attemptKey(r))),
      mu,
      kneeStep,
    ),
    ...(requestLevel ? { nRequests: true as const } : entryNames.length > 0 ? { wPerArrival: true } : {}),
  };
}

/**
 * The steps the fit is over, for its note ("fitted to 4 <scope>"). With steps left out it names
 * the fitted ones: the count alone read as if every step up to the knee were fitted ("fitted to 4
 * steps up to and including the last one held (step 8...)", a user's run, with 3, 4, 7 and 8 out).
 */
function uslScope(kept: readonly LittleRow[], someLeft: boolean, limitFound: boolean, kneeStep: number): string {
  const which = someLeft ? `(${stepList(kept.filter(usableUslPoint).map((r) => r.index))}) of those ` : '';
  return `steps ${which}up to and including ${limitFound ? 'the knee' : 'the last one held'} (step ${stepNo(kneeStep)}; N from Little's law)`;
}

/** The steps up to the knee left out of the fit, and why: stalled ones, then a queue; '' for none. */
function leftOutText(
  steps: readonly StepResult[],
  stalled: readonly number[],
  little: readonly LittleRow[],
  queued: readonly LittleRow[],
  kneeStep: number,
): string {
  // a sentence of its own: spliced into the note's scope it read "...left out: ... with throughput and latency, has 1"
  const one = stalled.length === 1;
  const stalls =
    stalled.length === 0
      ? []
      : [
          `${one ? 'Step' : 'Steps'} ${stepList(stalled)} ${one ? 'is' : 'are'} left out of the fit, the generator's own delays being in ${one ? 'its' : 'their'} mean and N: ${latenciesLeftOutWhy(steps, stalled).join('; ')}.`,
        ];
  return [...stalls, ...(queued.length > 0 ? [queuedSentence(little, queued, kneeStep)] : [])].join(' ');
}

/**
 * Why held steps up to the knee are left out as a queue (usl.ts uslQueuedRows): the first one's N
 * and W against the row before it.
 */
function queuedSentence(little: readonly LittleRow[], queued: readonly LittleRow[], kneeStep: number): string {
  const upTo = little.filter((r) => r.index <= kneeStep);
  const first = queued[0];
  const prev = upTo[upTo.indexOf(first) - 1];
  const one = queued.length === 1;
  const which = one ? `Step ${stepNo(first.index)} is` : `Steps ${stepList(queued.map((r) => r.index))} are`;
  const n = (x: number) => Number(x.toPrecision(3)).toLocaleString('en-US');
  const times = (x: number) => `${n(x)}×`;
  return `${which} left out of the fit as a queue: ${one ? 'its' : `step ${stepNo(first.index)}'s`} N of ${n(first.concurrency)} is ${times(first.concurrency / prev.concurrency)} step ${stepNo(prev.index)}'s ${n(prev.concurrency)} on ${times(first.throughputPerSec / prev.throughputPerSec)} the throughput (mean W ${fmtMs(first.meanMs)} ms against ${fmtMs(prev.meanMs)} ms): requests waited there${one ? '' : ' and after'}, so N counts them waiting, not concurrency the target served, as past a knee it does.`;
}

/** Why the fit is withheld where a step gives no requests in flight (models/little.ts requestsInFlight). */
function withheldNote(s: StepResult): string {
  const attempt = (s.attempt ?? 1) > 1 ? ` (attempt ${s.attempt})` : '';
  return `not fitted: an arrival here is several requests, and step ${stepNo(s.index)}${attempt} records no mean latency per request name, so the requests in flight at the target cannot be had; N from the arrivals' own time counts arrivals in flight (think time and all), not the target's concurrency`;
}
