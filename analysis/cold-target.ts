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
  const readings = steps.map(stepReading);
  const all: (Reading | null)[] = [warmupReading(warmup), ...readings];
  const out: Symptom[] = [];
  all.forEach((early, i) => {
    if (!early) return;
    const later = lowestLater(early, all.slice(i + 1));
    if (!later) return;
    out.push({
      code: 'cold-target',
      step: early.step,
      ...(early.attempt !== undefined ? { attempt: early.attempt } : {}),
      figures: {
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
function lowestLater(early: Reading, rest: readonly (Reading | null)[]): Reading | null {
  let best: Reading | null = null;
  for (const r of rest) {
    if (!r || r.ratePerSec <= early.ratePerSec) continue;
    if (r.p50Ms > COLD_RATIO * early.p50Ms || early.p50Ms - r.p50Ms < COLD_FLOOR_MS) continue;
    if (!best || r.p50Ms < best.p50Ms) best = r;
  }
  return best;
}

/** A judged step's median, when it can be compared: judged on a full window, topology steady, enough samples. */
function stepReading(s: StepResult): Reading | null {
  if ((s.verdict !== 'holds' && s.verdict !== 'fails') || s.contaminated) return null;
  const p50 = s.latency.find((p) => p.q === 50);
  if (!p50 || !p50.reliable || p50.valueMs === null || !Number.isFinite(p50.valueMs)) return null;
  return {
    measured: 'step',
    step: s.index,
    ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
    ratePerSec: s.ratePerSec,
    p50Ms: p50.valueMs,
  };
}

/** The warmup's last windows: the median of their medians, when each has one and together they hold enough requests. */
function warmupReading(w: WarmupRecord | null): Reading | null {
  if (!w || w.windows.length < 2) return null; // one window gives no window length, and no steady reading
  const windowS = w.windows[1]!.fromS - w.windows[0]!.fromS;
  const last = w.windows.slice(-WARMUP_LAST_WINDOWS);
  const medians = last.map((x) => x.p50Ms);
  if (!(windowS > 0) || medians.some((m) => m === null || !Number.isFinite(m))) return null;
  const samples = last.reduce((n, x) => n + x.throughputPerSec * windowS, 0);
  if (samples < COLD_MIN_WARMUP_SAMPLES) return null;
  return { measured: 'warmup', step: null, ratePerSec: w.ratePerSec, p50Ms: median(medians as number[]) };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
