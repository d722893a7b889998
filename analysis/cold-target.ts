/**
 * Was the target still warming when it was measured? On a warm target the median latency does
 * not fall as the offered rate rises: the service time S stays, and queueing only adds to it
 * (an M/M/1 median grows as S / (1 - rho)). So a later step at a higher rate whose median is
 *
 *   laterP50Ms <= COLD_RATIO x p50Ms   and   p50Ms - laterP50Ms >= COLD_FLOOR_MS
 *
 * means the service time itself fell in between (JIT, caches, pools, instances still joining):
 * the earlier reading (a step, or the warmup's last windows) was taken on a cold target, and its
 * figures describe a target that no longer exists.
 *
 * A mix is read name by name (each name's median against its own later ones): a median pooled over
 * entries of different speeds lands on one mode or the other, and a 50/50 mix's would "fall"
 * between two steps of a warm target. A transaction's name is not read: its duration sums its
 * requests (and its think time), each read under its own name, so that sub-millisecond loopback
 * noise on each would add up past the floor on their sum (a 1.7 ms transaction of an idle echo
 * server read 0.6 ms a step later, its requests under the floor each).
 *
 * COLD_RATIO 0.6: the medians of steps of one steady target agree within a few percent, a noisy
 * shared machine moves them by 10-20%; a fall of 40% is far outside that and still catches a
 * target twice as slow cold (0.5). COLD_FLOOR_MS 0.5: on loopback sub-millisecond medians halve
 * from scheduling noise alone (the floor analysis/warmup.ts uses for the same reason).
 */
import type { StepResult, Symptom, WarmupRecord } from './types.ts';

export const COLD_RATIO = 0.6;
export const COLD_FLOOR_MS = 0.5;
/** Requests the warmup's last windows must hold for their median to be compared (as rules.minTailSamples' default). */
export const COLD_MIN_WARMUP_SAMPLES = 30;
/** The warmup's reading: the median of its last windows' medians (the windows it was judged stable on by default). */
const WARMUP_LAST_WINDOWS = 3;

interface Reading {
  measured: 'warmup' | 'step';
  /** The name read, in a run with names; absent: every request. */
  name?: string;
  step: number | null;
  attempt?: number;
  ratePerSec: number;
  p50Ms: number;
}

/**
 * One `cold-target` symptom per earlier reading that a later, faster-loaded step undercuts.
 * figures: `measured` ('warmup' or 'step'), its `ratePerSec` and `p50Ms`; the later step that
 * shows it (`laterStep`, 0-based, `laterAttempt`, `laterRatePerSec`, `laterP50Ms`: the lowest
 * such median), `ratio` = laterP50Ms / p50Ms and the bound it passed, `ratioMax`. The warmup's
 * symptom has step null. `steps` are in the order they ran (reruns included).
 */
export function coldTarget(warmup: WarmupRecord | null, steps: readonly StepResult[]): Symptom[] {
  const named = steps.some((s) => s.byName !== undefined && Object.keys(s.byName).length > 0);
  const transactions = new Set(
    steps.flatMap((s) => Object.entries(s.byName ?? {}).flatMap(([n, r]) => (r.transaction ? [n] : []))),
  );
  const all: Reading[] = named
    ? [...warmupNameReadings(warmup), ...steps.flatMap(stepNameReadings)].filter((r) => !transactions.has(r.name!))
    : [warmupReading(warmup), ...steps.map(stepReading)].filter((r): r is Reading => r !== null);
  const out: Symptom[] = [];
  all.forEach((early, i) => {
    const later = lowestLater(
      early,
      all.slice(i + 1).filter((r) => r.name === early.name),
    );
    if (!later) return;
    out.push({
      code: 'cold-target',
      step: early.step,
      ...(early.attempt !== undefined ? { attempt: early.attempt } : {}),
      figures: {
        ...(early.name !== undefined ? { name: early.name } : {}),
        measured: early.measured,
        ratePerSec: early.ratePerSec,
        p50Ms: round3(early.p50Ms),
        laterStep: later.step,
        laterAttempt: later.attempt ?? 1,
        laterRatePerSec: later.ratePerSec,
        laterP50Ms: round3(later.p50Ms),
        ratio: round3(later.p50Ms / early.p50Ms),
        ratioMax: COLD_RATIO,
      },
    });
  });
  return out;
}

/** The later step at a higher rate with the lowest median that passes both bounds, or null. */
function lowestLater(early: Reading, rest: readonly Reading[]): Reading | null {
  let best: Reading | null = null;
  for (const r of rest) {
    if (r.ratePerSec <= early.ratePerSec) continue;
    if (r.p50Ms > COLD_RATIO * early.p50Ms || early.p50Ms - r.p50Ms < COLD_FLOOR_MS) continue;
    if (!best || r.p50Ms < best.p50Ms) best = r;
  }
  return best;
}

/** A trusted median of a step's percentiles, or null. */
function trustedP50(latency: readonly { q: number; valueMs: number | null; reliable: boolean }[]): number | null {
  const p50 = latency.find((p) => p.q === 50);
  if (!p50 || !p50.reliable || p50.valueMs === null || !Number.isFinite(p50.valueMs)) return null;
  return p50.valueMs;
}

/**
 * Can a step be compared at all: judged on a full window, topology steady, and its latencies the
 * target's: not an attempt the run set aside as transient (a stall failed it and its rerun held),
 * nor one whose generator was over its bounds (generator-bound, or held generator-limited), whose
 * medians hold the generator's own delay (a transient attempt's 23.9 ms against its rerun's 4.4
 * read as a target 5x faster a step later).
 */
function comparable(s: StepResult): boolean {
  return (
    (s.verdict === 'holds' || s.verdict === 'fails') &&
    !s.contaminated &&
    !s.transient &&
    !s.generatorBound &&
    s.generatorLimited === undefined
  );
}

function readingOf(s: StepResult, p50Ms: number, name?: string): Reading {
  return {
    measured: 'step',
    ...(name !== undefined ? { name } : {}),
    step: s.index,
    ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
    ratePerSec: s.ratePerSec,
    p50Ms,
  };
}

/** A judged step's median, when it can be compared: judged on a full window, topology steady, enough samples. */
function stepReading(s: StepResult): Reading | null {
  const p50 = comparable(s) ? trustedP50(s.latency) : null;
  return p50 === null ? null : readingOf(s, p50);
}

/** Each name's median of a comparable step, where it rests on enough samples. */
function stepNameReadings(s: StepResult): Reading[] {
  if (!comparable(s)) return [];
  return Object.entries(s.byName ?? {}).flatMap(([name, r]) => {
    const p50 = trustedP50(r.latency);
    return p50 === null ? [] : [readingOf(s, p50, name)];
  });
}

/**
 * The warmup's last windows, for every request or for one name: the median of their medians,
 * when each has one and together they hold enough requests.
 */
function warmupReading(w: WarmupRecord | null, name?: string): Reading | null {
  if (!w || w.windows.length < 2) return null; // one window gives no window length, and no steady reading
  const windowS = w.windows[1]!.fromS - w.windows[0]!.fromS;
  const last = w.windows.slice(-WARMUP_LAST_WINDOWS);
  const of = (x: WarmupRecord['windows'][number]) =>
    name === undefined
      ? { p50Ms: x.p50Ms, n: x.throughputPerSec * windowS }
      : { p50Ms: x.byName?.[name]?.p50Ms ?? null, n: x.byName?.[name]?.n ?? 0 };
  const medians = last.map((x) => of(x).p50Ms);
  if (!(windowS > 0) || medians.some((m) => m === null || !Number.isFinite(m))) return null;
  if (last.reduce((n, x) => n + of(x).n, 0) < COLD_MIN_WARMUP_SAMPLES) return null;
  return {
    measured: 'warmup',
    ...(name !== undefined ? { name } : {}),
    step: null,
    ratePerSec: w.ratePerSec,
    p50Ms: median(medians as number[]),
  };
}

/**
 * The warmup's median over every request (the median of its last windows' medians), with the rate
 * it was offered; null where its windows give none (too few, or too few requests).
 */
export function warmupMedian(w: WarmupRecord | null): { p50Ms: number; ratePerSec: number } | null {
  const r = warmupReading(w);
  return r === null ? null : { p50Ms: r.p50Ms, ratePerSec: r.ratePerSec };
}

/** Each name's reading of the warmup (the names of its last window). */
function warmupNameReadings(w: WarmupRecord | null): Reading[] {
  return Object.keys(w?.windows.at(-1)?.byName ?? {}).flatMap((name) => warmupReading(w, name) ?? []);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
