/**
 * Which downstream limited the service at the knee, on its own evidence only (docs/decisions/030).
 * When the service flattens for any reason, every downstream's ops/s flattens with it: a flat ops
 * rate proves nothing. A downstream is named only when, at the knee or a deciding step after it:
 *
 *   ceiling     opsPerSec >= (1 - CEILING_MARGIN) x maxOpsPerSec            (declared)
 *   saturation  gauge max >= SATURATION_FACTOR x its baseline and >= baseline + 1
 *               (a count: blocked clients, a queue's length)
 *   latency     per-op mean >= LATENCY_FACTOR x its baseline and >= baseline + LATENCY_MIN_RISE_MS,
 *               while the service's pool had nobody waiting (server.poolPendingMax 0 or unread)
 *               and the generator was clear (not generator-bound, not generator-limited, not inconclusive)
 *
 * the baseline being the first deciding step with figures. The earliest step with evidence names
 * its downstream (declared order breaks a tie); without one, the verdict says where the evidence
 * points instead: the service's connection pool (with any generator trouble beside it: a knee held
 * generator-limited still delivered its rate, and the pool's readings are the target's own), the
 * generator, or none of them.
 */
import { fmtInt, fmtMs, fmtRate, fmtShare, stepList, stepNo } from './format.ts';
import { poolAtLimit } from './pool.ts';
import { generatorFix } from './generator-fix.ts';
import type { DownstreamConfig, DownstreamEvidence, DownstreamStep, DownstreamVerdict, StepResult } from './types.ts';

export const CEILING_MARGIN = 0.1;
export const SATURATION_FACTOR = 2;
export const LATENCY_FACTOR = 2;
export const LATENCY_MIN_RISE_MS = 1;

export interface Evidence {
  kind?: DownstreamEvidence;
  /** The step (index) the evidence was seen at. */
  step: number | null;
  /** The evidence as a clause ("its blocked clients up from 0 to 41 at step 8"), when found. */
  clause?: string;
  /** The downstream's own line: what it showed, or why nothing it showed names it. */
  text: string;
  /** The examined steps (the knee and after) at which no figures were read: its clearance does not cover them. */
  unread?: number[];
}

/**
 * Successful requests per second over the step's steady window: the sum of the request names'
 * ok/s where the step records names (every request of every arrival; transactions' own figures
 * are arrivals and are left out), else throughputPerSec (each arrival is one request).
 */
export function successfulRequestsPerSec(s: StepResult): number {
  const requests = Object.values(s.byName ?? {}).filter((n) => !n.transaction);
  if (requests.length > 0) return requests.reduce((a, n) => a + n.throughputPerSec, 0);
  return s.throughputPerSec;
}

/** A gauge's reading: "41", "0.5". */
function fmtGauge(v: number): string {
  return Number.isInteger(v) ? fmtInt(v) : fmtRate(v);
}

/** Ops/s as people read them: "93,612" or "12.5". */
export function fmtOps(perSec: number): string {
  return perSec >= 100 ? fmtInt(perSec) : fmtRate(perSec);
}

/** Ops per request: "16.6", "4.00". */
export function fmtFanOut(x: number | null): string {
  return x === null ? '–' : x.toFixed(x < 10 ? 2 : 1);
}

/** The deciding steps from the knee on (every deciding step when no step held). */
export function examinedSteps(deciding: readonly StepResult[], kneeStep: number | null): StepResult[] {
  return kneeStep === null ? [...deciding] : deciding.filter((s) => s.index >= kneeStep);
}

function generatorClear(s: StepResult): boolean {
  return !s.generatorBound && s.generatorLimited === undefined && !s.inconclusive;
}

function poolClear(s: StepResult): boolean {
  return (s.server?.poolPendingMax ?? 0) <= 0;
}

/** The clause of the first kind of evidence `f` shows against `base`, or null. */
function evidenceAt(
  d: DownstreamConfig,
  s: StepResult,
  f: DownstreamStep,
  base: DownstreamStep | null,
): { kind: DownstreamEvidence; clause: string } | null {
  const n = stepNo(s.index);
  if (d.maxOpsPerSec && f.opsPerSec !== null && f.opsPerSec >= (1 - CEILING_MARGIN) * d.maxOpsPerSec)
    return {
      kind: 'ceiling',
      clause: `${fmtOps(f.opsPerSec)} ops/s at step ${n}, ${fmtShare(f.opsPerSec / d.maxOpsPerSec)} of its declared ceiling of ${fmtOps(d.maxOpsPerSec)} ops/s`,
    };
  if (!base || base === f) return null;
  const b = base.saturationMax ?? base.saturationStart;
  if (d.saturation && b != null && f.saturationMax != null) {
    if (f.saturationMax >= SATURATION_FACTOR * b && f.saturationMax >= b + 1)
      return {
        kind: 'saturation',
        clause: `its ${d.saturation} up from ${fmtGauge(b)} to ${fmtGauge(f.saturationMax)} at step ${n}`,
      };
  }
  const lb = base.latencyMeanMs;
  const l = f.latencyMeanMs;
  if (latencyRose(d, f, base) && poolClear(s) && generatorClear(s))
    return {
      kind: 'latency',
      clause: `its per-op time up from ${fmtMs(lb!)} ms to ${fmtMs(l!)} ms at step ${n} (${(l! / lb!).toFixed(1)}x) while the service's pool had nobody waiting and the generator kept up`,
    };
  return null;
}

/** Its per-op time rose by LATENCY_FACTOR and LATENCY_MIN_RISE_MS over the baseline's. */
function latencyRose(d: DownstreamConfig, f: DownstreamStep, base: DownstreamStep): boolean {
  const lb = base.latencyMeanMs;
  const l = f.latencyMeanMs;
  return !!d.latency && lb != null && l != null && l >= LATENCY_FACTOR * lb && l >= lb + LATENCY_MIN_RISE_MS;
}

/**
 * Where its per-op time rose as evidence would, at a step whose pool had callers waiting or whose
 * generator was not clear: why that rise is not its own evidence (a per-op time the service times
 * includes its wait for a connection). Else ''.
 */
function latencyDiscounted(i: number, read: readonly StepResult[], base: DownstreamStep, d: DownstreamConfig): string {
  const s = read.find((x) => latencyRose(d, x.downstreams![i], base));
  if (!s) return '';
  const why = !poolClear(s)
    ? "the service's pool had callers waiting, a wait a per-op time timed in the service includes"
    : 'the generator was not clear';
  return `, its rise to ${fmtMs(s.downstreams![i].latencyMeanMs!)} ms at step ${stepNo(s.index)} discounted: ${why}`;
}

/** What downstream `i` shows at the knee and after it. */
export function evidenceOf(
  d: DownstreamConfig,
  i: number,
  deciding: readonly StepResult[],
  kneeStep: number | null,
): Evidence {
  const baseStep = deciding.find((s) => s.downstreams?.[i]?.opsPerSec != null) ?? null;
  const base = baseStep?.downstreams![i] ?? null;
  for (const s of examinedSteps(deciding, kneeStep)) {
    const f = s.downstreams?.[i];
    if (!f || f.opsPerSec === null) continue;
    const e = evidenceAt(d, s, f, base);
    if (e) return { ...e, step: s.index, text: `${d.name}: ${e.clause}` };
  }
  if (!base)
    return {
      step: null,
      text: `${d.name}: ${noStepRan(deciding) ? 'no step ran, so no figure of it was read' : 'no figures were read in any steady window (see its problems)'}`,
    };
  if (!d.saturation && !d.latency && !d.maxOpsPerSec)
    return {
      step: null,
      text: `${d.name}: only its ops are declared, and a flat ops rate follows the service's and proves nothing: declare its saturation gauge, per-op latency or maxOpsPerSec (metrics.downstreams) to judge it`,
    };
  // a step without figures (its exporter gone, Prometheus unreachable) clears nothing: "at most 0" of no reading would exonerate it
  const examined = examinedSteps(deciding, kneeStep);
  const unread = examined.filter((s) => s.downstreams?.[i]?.opsPerSec == null).map((s) => s.index);
  const read = examined.filter((s) => s.downstreams?.[i]?.opsPerSec != null);
  const missing = unread.length > 0 ? { unread } : {};
  if (read.length === 0)
    return {
      step: null,
      ...missing,
      text: `${d.name}: no figures were read at the knee or after it (${unread.length === 1 ? 'step' : 'steps'} ${stepList(unread)}; see its problems): whether it limited the service cannot be told`,
    };
  const gap =
    unread.length > 0
      ? `; no figures at ${unread.length === 1 ? 'step' : 'steps'} ${stepList(unread)} (see its problems), which this does not cover`
      : '';
  return { step: null, ...missing, text: `${d.name}: ${clearText(d, i, read, base)}${gap}` };
}

/** Its own evidence stayed clear over the examined steps with figures (`read`): the readings that say so. */
function clearText(d: DownstreamConfig, i: number, read: readonly StepResult[], base: DownstreamStep): string {
  const examined = read.map((s) => s.downstreams![i]);
  const parts: string[] = [];
  const peak = Math.max(...examined.map((f) => f.opsPerSec ?? 0));
  if (d.maxOpsPerSec)
    parts.push(
      `at most ${fmtOps(peak)} ops/s, ${fmtShare(peak / d.maxOpsPerSec)} of its ceiling of ${fmtOps(d.maxOpsPerSec)}`,
    );
  if (d.saturation) {
    const sat = Math.max(...examined.map((f) => f.saturationMax ?? 0));
    parts.push(`its ${d.saturation} at most ${fmtGauge(sat)} (from ${fmtGauge(base.saturationMax ?? 0)})`);
  }
  if (d.latency) {
    const lat = Math.max(...examined.map((f) => f.latencyMeanMs ?? 0));
    parts.push(
      `its per-op time at most ${fmtMs(lat)} ms (from ${fmtMs(base.latencyMeanMs ?? null)} ms)${latencyDiscounted(i, read, base, d)}`,
    );
  }
  return `no evidence of its own at the knee: ${parts.join(', ')}`;
}

function noStepRan(deciding: readonly StepResult[]): boolean {
  return deciding.every((s) => s.verdict === 'not-run');
}

/** The run's verdict from every downstream's evidence (see the file comment). */
export function downstreamVerdict(
  declared: readonly DownstreamConfig[],
  evidence: readonly Evidence[],
  deciding: readonly StepResult[],
  kneeStep: number | null,
): DownstreamVerdict {
  const examined = examinedSteps(deciding, kneeStep);
  // a run stopped before its load (preflight, reset) offered no rate: it cannot say that nothing limited one
  if (noStepRan(deciding))
    return { limiting: null, pointsTo: 'nothing', step: null, detail: 'no step ran, so no downstream can be judged' };
  if (!examined.some((s) => s.verdict === 'fails'))
    return {
      limiting: null,
      pointsTo: 'nothing',
      step: null,
      detail: `no step failed past ${kneeStep === null ? 'the first' : `step ${stepNo(kneeStep)}`}: nothing limited the service at the rates offered, so no downstream is named (offer higher rates to find the limit)`,
    };
  let pick: number | null = null;
  evidence.forEach((e, i) => {
    if (e.kind && e.step !== null && (pick === null || e.step < evidence[pick].step!)) pick = i;
  });
  if (pick !== null) return named(declared[pick], pick, evidence[pick], deciding, kneeStep);
  const unread = declared.filter((_, i) => evidence[i].unread);
  const none = `no declared downstream (${declared.map((d) => d.name).join(', ')}) showed evidence of its own at the knee${unread.length > 0 ? ` (${unread.map((d) => d.name).join(' and ')} read no figures at some step from the knee on, where ${unread.length === 1 ? 'it is' : 'they are'} not cleared: see ${unread.length === 1 ? 'its line' : 'their lines'})` : ''}; a flat ops rate follows the service's and proves nothing`;
  const gen = examined.find((s) => s.generatorBound || s.generatorLimited !== undefined);
  const pool = examined.find((s) => (s.server?.poolPendingMax ?? 0) > 0 || poolAtLimit(s.server));
  // the pool's own readings stand whatever the generator did; its trouble is the caveat beside them
  if (pool)
    return {
      limiting: null,
      pointsTo: 'pool',
      step: pool.index,
      detail: `${none}. The evidence points to the service's connection pool: at step ${stepNo(pool.index)} it was ${pool.poolReading ?? 'at its maximum'}${gen ? `. Beside it, the load generator: ${generatorCaveat(gen)}` : ''}`,
    };
  if (gen)
    return {
      limiting: null,
      pointsTo: 'generator',
      step: gen.index,
      detail: `${none}. The evidence points to the load generator: ${generatorCaveat(gen)}`,
    };
  return {
    limiting: null,
    pointsTo: 'nothing',
    step: null,
    detail: `${none}, and neither the service's pool nor the generator shows a limit: it lies elsewhere (CPU, a lock, a downstream not declared); declare the downstreams the service calls with a saturation gauge, per-op latency or maxOpsPerSec`,
  };
}

/**
 * What the generator's trouble at step `s` means: a generator-bound step failed for the generator,
 * so the run measured the generator there; a generator-limited one held (delivered its rate), so
 * only its latencies carry the generator's own delays. Then the fix.
 */
function generatorCaveat(s: StepResult): string {
  const n = stepNo(s.index);
  const what = s.generatorBound
    ? `step ${n} was generator-bound, so the run measured the generator there`
    : `step ${n} held generator-limited (delivery ${s.delivery.toFixed(2)}): the target served its rate, but its latencies carry the generator's own delays`;
  return `${what}; first, ${generatorFix(s)}`;
}

/** The named downstream's arithmetic at the knee: ops/s = req/s x ops per request. */
function named(
  d: DownstreamConfig,
  i: number,
  e: Evidence,
  deciding: readonly StepResult[],
  kneeStep: number | null,
): DownstreamVerdict {
  const knee = deciding.find(
    (s) => s.index === kneeStep && s.verdict === 'holds' && s.downstreams?.[i]?.opsPerSec != null,
  );
  const at = knee ?? deciding.find((s) => s.index === e.step)!;
  const f = at.downstreams![i];
  const arithmetic =
    f.opsPerSec !== null && f.opsPerRequest !== null
      ? `${fmtOps(f.opsPerSec)} ops/s from step ${stepNo(at.index)} = ${fmtRate(f.requestsPerSec ?? successfulRequestsPerSec(at))} req/s x ${fmtFanOut(f.opsPerRequest)} ops per request, `
      : '';
  return {
    limiting: d.name,
    pointsTo: 'downstream',
    step: e.step,
    detail: `${d.name}: ${arithmetic}${e.clause}: at this fan-out ${d.name}'s ceiling is the service's; fewer round trips per request raise it`,
  };
}
