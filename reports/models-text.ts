/**
 * The models section as plain text (a header, rows of cells, sentences), shared by report.md and
 * report.html so both say the same thing; each renderer escapes it for its own format.
 */
import { fmtMs, fmtRate, fmtRatio, fmtTarget, stepNo } from '../analysis/format.ts';
import { PEAK_X_FACTOR, uslFitRows, uslThroughput } from '../analysis/models/usl.ts';
import { RHO_READABLE_MAX } from '../analysis/models/utilisation.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import { generatorInLatencies } from '../analysis/warnings.ts';
import type { LittleRow, Models, RunResult, UslFit } from '../analysis/types.ts';
import { sameAttempt } from './cells.ts';
import type { RateUnit } from './cells.ts';

/** Below this R^2 the report says the law fits poorly. */
export const USL_R2_GOOD = 0.9;

/** The Little's-law table's header; X in the run's unit (arrivals/s for a run with a transaction). */
export function modelHeader(unit: RateUnit = 'req/s'): string[] {
  return ['Step', `Target ${unit}`, `X ${unit}`, 'Mean W ms', 'N = X × W', 'ρ = X / μ', '1 / (1 − ρ)', 'W / W₁'];
}

/** 3 significant digits, plain (no grouping) so small parameters read as 0.000390. */
export function sig3(x: number): string {
  return Number.isFinite(x) ? x.toPrecision(3).replace(/\.?0+e/, 'e') : '–';
}

function fmtTimes(x: number): string {
  return `${x < 10 ? x.toFixed(2) : x.toFixed(1)}×`;
}

/** ρ with as many decimals (2 to 5) as it takes not to print as the readable bound it passed: 0.8049 is "0.805", not "0.80". */
function fmtRho(rho: number): string {
  if (rho <= RHO_READABLE_MAX) return fmtRatio(rho);
  const d = [2, 3, 4, 5].find((n) => Number(rho.toFixed(n)) > RHO_READABLE_MAX) ?? 5;
  return rho.toFixed(d);
}

/** The bound past which 1 / (1 − ρ) is not printed, as the cells say it. */
const NOT_READ = `ρ > ${fmtRatio(RHO_READABLE_MAX)}`;

/**
 * ρ and 1 / (1 − ρ) of a row. Against a μ that is only a floor (no step failed at the target),
 * upper bounds, and no row is known to be saturated. Against an established μ: past the knee no
 * figure (the rate offered exceeded what was served: no steady queue for the formula), and past
 * RHO_READABLE_MAX none either (it turns on μ's own last percent: decision 055).
 */
function utilisationCells(
  u: Models['utilisation'][number],
  atLeast: boolean,
  kneeStep: number | null,
): [string, string] {
  if (atLeast) return [`≤ ${fmtRatio(u.rho)}`, u.amplification === null ? '–' : `≤ ${fmtTimes(u.amplification)}`];
  if (kneeStep !== null && u.index > kneeStep) return [fmtRatio(u.rho), 'past the knee'];
  if (u.rho > RHO_READABLE_MAX || u.amplification === null) return [fmtRho(u.rho), NOT_READ];
  return [fmtRatio(u.rho), fmtTimes(u.amplification)];
}

/**
 * One row per attempt with data (a rerun has its own row, its own ρ): N from Little's law,
 * utilisation and amplification beside measured inflation. `kneeStep` (0-based): the rows past it
 * read "past the knee".
 */
export function modelRows(m: Models, kneeStep: number | null): string[][] {
  return m.little.map((r) => {
    const u = m.utilisation.find((x) => sameAttempt(x, r));
    return [
      (r.attempt ?? 1) > 1 ? `${stepNo(r.index)} (attempt ${r.attempt})` : String(stepNo(r.index)),
      fmtTarget(r.ratePerSec),
      fmtRate(r.throughputPerSec),
      fmtMs(r.meanMs),
      sig3(r.concurrency),
      ...(u ? utilisationCells(u, m.utilisationBaseAtLeast === true, kneeStep) : ['–', '–']),
      u?.latencyInflation == null ? '–' : `${u.latencyInflation.toFixed(2)}×`,
    ];
  });
}

/**
 * What N is. One request per arrival: the concurrency the target carried. Several (nRequests): the
 * requests in flight at the target, think time excluded, and W = N / X. Else (no mean per request
 * name, or a run analysed before nRequests) N counts arrivals, not the target's concurrency.
 */
function littleIntro(m: Models, unit: RateUnit): string {
  if (unit !== 'arrivals/s')
    return "Little's law gives the mean concurrency the target carried at each step (N = X × W).";
  if (m.nRequests)
    return "Little's law gives the mean concurrency the target carried at each step: N is the requests in flight at the target, the sum over request names of requests/s × mean latency, think time excluded. X counts arrivals, so W = N / X is an arrival's mean time at the target: its requests' latencies, not the think time between them.";
  return m.wPerArrival
    ? "Little's law gives the mean number in flight at each step (N = X × W). X counts arrivals, so W is an arrival's mean time (a transaction's whole, think time included) and N the arrivals in flight, not the requests the target held."
    : "Little's law gives the mean number in flight at each step (N = X × W). X counts arrivals, but W is a request's mean time (the run records no arrival's own: an imported k6 run's iterations), so N understates the arrivals in flight and is not the requests the target held.";
}

export function modelsIntro(m: Models, unit: RateUnit, kneeStep: number | null): string {
  const mu =
    m.utilisationBasePerSec === null
      ? 'no step held, so there is no capacity to measure utilisation against'
      : m.utilisationBaseAtLeast
        ? `μ ≥ ${fmtRate(m.utilisationBasePerSec)} ${unit}, the highest steady throughput reached: the run established no capacity, so the saturation throughput is at least that and each ρ at most the table's`
        : `μ = ${fmtRate(m.utilisationBasePerSec)} ${unit}, the highest steady throughput reached`;
  return `${littleIntro(m, unit)} Utilisation ρ = X / μ (${mu}); 1 / (1 − ρ) is how much queueing stretches time in system in the textbook (M/M/1) queue, set beside the measured latency inflation W / W₁.${unread(m, kneeStep)}`;
}

/** Why some rows give no 1 / (1 − ρ), said only where one does not (an established μ's). */
function unread(m: Models, kneeStep: number | null): string {
  if (m.utilisationBaseAtLeast || m.utilisationBasePerSec === null) return '';
  const past = (u: Models['utilisation'][number]) => kneeStep !== null && u.index > kneeStep;
  const near = m.utilisation.some((u) => !past(u) && (u.rho > RHO_READABLE_MAX || u.amplification === null));
  const out: string[] = [];
  if (near)
    out.push(
      ` Where ρ > ${fmtRatio(RHO_READABLE_MAX)} the table gives no 1 / (1 − ρ): μ is itself a measured throughput, a few percent wide, and there a μ 5% lower would move the figure by more than a quarter (at ρ = 0.98, 1% lower would double it).`,
    );
  if (m.utilisation.some(past))
    out.push(
      ' Past the knee it gives none either: the rate offered there exceeded what was served, so ρ, of the throughput served, understates the load, and the formula holds only for arrivals below μ.',
    );
  return out.join('');
}

/** The Little's-law rows the USL was fitted to (those up to the knee), as the analysis chose them. */
export function uslFitted(run: RunResult): LittleRow[] {
  return uslFitRows(run.models?.little ?? [], run.kneeStep);
}

/** The largest N the fit rests on (the knee's, usually); null without fitted rows. */
export function fittedMaxN(run: RunResult): number | null {
  const rows = uslFitted(run);
  return rows.length === 0 ? null : Math.max(...rows.map((r) => r.concurrency));
}

/** The measured span of the rows the fit rests on, for uslSentences: the largest N and the highest X (null without rows). */
export function fittedSpan(run: RunResult): { maxN: number | null; maxX: number | null } {
  const rows = uslFitted(run);
  if (rows.length === 0) return { maxN: null, maxX: null };
  return { maxN: Math.max(...rows.map((r) => r.concurrency)), maxX: Math.max(...rows.map((r) => r.throughputPerSec)) };
}

/**
 * The run's USL peak lies past every N it was fitted to: its own flag, or for a summary stored
 * before the flag (2026-12-05) N* against the fitted rows' largest N, as the charts read it.
 */
export function uslExtrapolated(run: RunResult): boolean {
  const fit = run.models?.usl;
  if (!fit || fit.nStar === null) return false;
  if (fit.extrapolated !== undefined) return fit.extrapolated;
  const maxN = fittedMaxN(run);
  return maxN !== null && fit.nStar > maxN;
}

/**
 * The USL fit in sentences (parameters, N*, predicted peak, quality). `maxN` is the largest N it
 * was fitted to: an N* beyond it is an extrapolation, and said so. `maxX` is the highest throughput
 * a fitted step measured: a least-squares curve through noisy steps can peak below it, and a reader
 * who sees a "peak" under the capacity is told which figure stands.
 */
export function uslSentences(
  fit: UslFit | null,
  note: string,
  span: { maxN: number | null; maxX?: number | null } = { maxN: null },
  unit: RateUnit = 'req/s',
  /** The steps left out of the fit, and why (Models.uslLeftOut): a sentence after the fit's. */
  leftOut?: string,
): string[] {
  const { maxN } = span;
  const maxX = span.maxX ?? null;
  const left = leftOut === undefined ? [] : [leftOut];
  if (fit === null) return [`Universal Scalability Law: ${note}.`, ...left];
  const beyond =
    fit.nStar !== null && maxN !== null && fit.nStar > maxN
      ? ` (beyond the measured N ≤ ${sig3(maxN)}: an extrapolation, not a step's figure)`
      : fit.gapN
        ? ` (between the measured N = ${sig3(fit.gapN[0])} and ${sig3(fit.gapN[1])}, no step within 2× of it: the curve crosses a gap, not a step's figure)`
        : '';
  const peak =
    fit.nStar !== null && fit.nStarFar
      ? `N* = √((1 − α) / β) = ${sig3(fit.nStar)}, more than 2× the largest N fitted${maxN === null ? '' : ` (${sig3(maxN)})`}: no peak is predicted, the curve there resting on no step`
      : fit.nStar !== null && fit.peakFar
        ? `N* = √((1 − α) / β) = ${sig3(fit.nStar)}, where X(N*) would be ${maxX === null ? `more than ${PEAK_X_FACTOR}×` : fmtTimes(uslThroughput(fit, fit.nStar) / maxX)} the highest throughput a fitted step measured${maxX === null ? '' : ` (${fmtRate(maxX)} ${unit})`}: no peak is predicted, no step having come near it`
        : fit.nStar === null || fit.peakPerSec === null
          ? noPeak(fit)
          : `N* = √((1 − α) / β) = ${sig3(fit.nStar)}, predicted peak X(N*) = ${fmtRate(fit.peakPerSec)} ${unit}${beyond}`;
  const out = [
    `Universal Scalability Law X(N) = γN / (1 + α(N − 1) + βN(N − 1)), ${note}: α = ${sig3(fit.alpha)} (contention), β = ${sig3(fit.beta)} (coherency), γ = ${fmtRate(fit.gamma)} ${unit} at N = 1; ${peak}; R² = ${fit.r2.toFixed(3)}.`,
    ...left,
  ];
  if (fit.peakPerSec !== null && maxX !== null && fit.peakPerSec < maxX)
    out.push(
      `The predicted peak lies below the ${fmtRate(maxX)} ${unit} a fitted step measured: the curve smooths the steps' noise and underestimates there, so the measured figure stands, not the fit's peak.`,
    );
  if (fit.r2 < USL_R2_GOOD)
    out.push(`The fit is poor (R² < ${USL_R2_GOOD}): the steps do not follow the law well; read α, β and N* as rough.`);
  return out;
}

/** Below this α reads as none: with β = 0 the fitted steps' throughput rose in proportion to N. */
const NO_CONTENTION = 1e-3;

/** Why a fit has no N* (β = 0 or α ≥ 1): contention alone levels throughput off; with none either it never turned. */
function noPeak(fit: UslFit): string {
  if (fit.alpha < NO_CONTENTION && !(fit.beta > 0))
    return "no peak: the fitted steps' throughput rose in proportion to N (α ≈ 0, β ≈ 0), so they show no limit and the law predicts none";
  return 'no interior peak (β ≈ 0 or α ≥ 1): throughput levels off instead of falling';
}

/** A share as a percentage to 2 significant figures: 0.0234 -> "2.3%", 0.0005 -> "0.05%". */
function pct2(x: number): string {
  return `${Number((x * 100).toPrecision(2))}%`;
}

/**
 * The measured mean at the knee against step 1's, or nothing where that compares nothing: the
 * knee is the reference row itself, or either one's latencies hold the generator's own delays.
 */
function measuredClause(run: RunResult, m: Models, knee: Models['utilisation'][number]): string {
  const first = m.utilisation[0];
  if (knee.latencyInflation === null || first === undefined || sameAttempt(first, knee)) return '';
  const held = [knee, first].some((u) => run.steps.some((s) => sameAttempt(s, u) && generatorInLatencies(s)));
  return held ? '' : `; the measured mean was ${knee.latencyInflation.toFixed(2)}× step 1's`;
}

/** "Near the knee" in one sentence, or nothing without a knee. */
export function kneeSentence(run: RunResult, m: Models): string[] {
  const kneeStep = kneeResult(run);
  const knee = kneeStep === null ? undefined : m.utilisation.find((u) => sameAttempt(u, kneeStep));
  if (!knee) return [];
  const measured = measuredClause(run, m, knee);
  if (m.utilisationBaseAtLeast)
    return [
      `At the last step held (step ${stepNo(knee.index)}) ρ ≤ ${fmtRatio(knee.rho)}: the run established no capacity, so how near saturation it ran is not known${measured}.`,
    ];
  const amp =
    knee.amplification !== null && knee.rho <= RHO_READABLE_MAX
      ? `: queueing would stretch time in system ${fmtTimes(knee.amplification)}`
      : knee.rho >= 1
        ? ": the knee's throughput is μ itself, the highest any step reached, so 1 / (1 − ρ) has no figure there"
        : `, too near 1 for 1 / (1 − ρ) to be read: it turns on the ${pct2(1 - knee.rho)} by which the knee's throughput falls short of μ (a μ ${pct2((1 - knee.rho) / (1 + knee.rho))} lower would double it)`;
  return [
    `Near the knee (step ${stepNo(knee.index)}) ρ = ${fmtRho(knee.rho)}${amp}${measured}. Latency climbs steeply as ρ nears 1, which is why capacity is read from throughput, not from a latency target.`,
  ];
}
