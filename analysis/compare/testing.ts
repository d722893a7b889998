/**
 * Builders for tests of the per-name comparison (compare and gate): one name's steady window by
 * hand, and a run whose steps carry such figures. Deterministic; imported by tests only.
 */
import type { NameResult, RunResult, StepResult } from '../types.ts';

export interface FakeName {
  /** p99 of the successful ones (default 10 ms); null: none succeeded. */
  p99Ms?: number | null;
  /** Whether enough samples back the p99 (default true). */
  reliable?: boolean;
  /** A p90 (ms), reliable: none by default (then only the p99 can be judged). */
  p90Ms?: number;
  /** Completions in the window (default 3,000: enough for a p99). */
  completed?: number;
  errorRate?: number;
  /** Completions per second (default 100). */
  perSec?: number;
  transaction?: boolean;
}

export function nameResult(f: FakeName = {}): NameResult {
  const completed = f.completed ?? 3000;
  const failed = Math.round(completed * (f.errorRate ?? 0));
  const perSec = f.perSec ?? 100;
  const p99Ms = f.p99Ms === undefined ? 10 : f.p99Ms;
  return {
    ...(f.transaction ? { transaction: true as const } : {}),
    completedPerSec: perSec,
    throughputPerSec: completed === 0 ? 0 : (perSec * (completed - failed)) / completed,
    completed,
    ok: completed - failed,
    failed,
    errorRate: completed === 0 ? 0 : failed / completed,
    errors: failed > 0 ? { http_5xx: failed } : {},
    latency: [
      { q: 50, valueMs: p99Ms === null ? null : p99Ms / 2, n: completed - failed, reliable: true },
      ...(f.p90Ms !== undefined ? [{ q: 90, valueMs: f.p90Ms, n: completed - failed, reliable: true }] : []),
      { q: 99, valueMs: p99Ms, n: completed - failed, reliable: f.reliable ?? true },
    ],
    meanMs: p99Ms === null ? null : p99Ms / 2,
    maxMs: p99Ms,
  };
}

/** The run with each step's byName set by `names` (undefined leaves a step without names). */
export function withNames(
  run: RunResult,
  names: (step: StepResult) => Record<string, FakeName> | undefined,
): RunResult {
  return {
    ...run,
    steps: run.steps.map((s) => {
      const n = names(s);
      if (n === undefined) return s;
      return { ...s, byName: Object.fromEntries(Object.entries(n).map(([k, v]) => [k, nameResult(v)])) };
    }),
  };
}
