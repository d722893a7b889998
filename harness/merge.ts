/**
 * `plateau report --merge runA runB ... --out dir`: several runs that loaded one target at the
 * same time (k6 instances with execution segments, native processes on several machines) become
 * one run store and one report. Buckets merge exactly (analysis/buckets.ts); the steps' rates add
 * up, since each run offered its own share; every run must have the same step timeline.
 */
import path from 'node:path';
import type { BucketRecord, StepPlan } from '../analysis/types.ts';
import { RunStore, loadRun, type RunMeta } from './store/run-store.ts';
import { writeReports } from './report.ts';
import { newRunId } from './environment.ts';
import { PlateauError, EXIT } from './errors.ts';
import { mixDifference } from '../analysis/compare/differences.ts';
import { fmtInt, rateUnitOf } from '../analysis/format.ts';
import type { RunResult } from '../analysis/types.ts';

export interface MergeOptions {
  dirs: string[];
  outDir: string;
  runId?: string;
}

function sameTimeline(a: StepPlan[], b: StepPlan[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (s, i) =>
        s.holdStartS === b[i].holdStartS && s.steadyStartS === b[i].steadyStartS && s.steadyEndS === b[i].steadyEndS,
    )
  );
}

/** A run's seconds as one text: per phase and second, its arrivals completed, ok and dropped (all sources summed). */
function fingerprint(records: readonly BucketRecord[]): string {
  const by = new Map<string, [number, number, number]>();
  for (const r of records) {
    const k = `${r.phase}/${r.tS}`;
    const v = by.get(k) ?? [0, 0, 0];
    v[0] += r.completed;
    v[1] += r.ok;
    v[2] += r.dropped;
    by.set(k, v);
  }
  return [...by]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}:${v.join(',')}`)
    .join(' ');
}

/** A run's arrivals in all: completed, ok and dropped over every second (all sources summed). */
function totals(records: readonly BucketRecord[]): [number, number, number] {
  const t: [number, number, number] = [0, 0, 0];
  for (const r of records) {
    t[0] += r.completed;
    t[1] += r.ok;
    t[2] += r.dropped;
  }
  return t;
}

/**
 * Two of the runs that are one run twice, and how they match: the same start and the same counts
 * second by second (a copy of a run's folder, or one k6 output imported twice), or a k6 run's JSON
 * and CSV exports: two imports of the two formats whose starts lie within a second (a CSV's default
 * whole-second stamps start it up to a second before the JSON's) and whose totals are the same (the
 * stamps move samples between neighbouring seconds, never out of the run). Merged, they would read
 * twice its capacity. Instances of one distributed run are exported in one format, and share
 * neither every second's counts nor, to the millisecond, a start.
 */
function sameRunTwice<T extends { dir: string; meta: RunMeta; records: BucketRecord[] }>(
  runs: readonly T[],
): { runs: [T, T]; same: string } | null {
  // each run's seconds and totals read once, then compared pair by pair
  const read = runs
    .filter((r) => r.records.length > 0)
    .map((r) => ({ r, seconds: fingerprint(r.records), totals: totals(r.records) }));
  for (const [i, b] of read.entries())
    for (const a of read.slice(0, i)) {
      const [ma, mb] = [a.r.meta, b.r.meta];
      if (ma.startedAt === mb.startedAt && a.seconds === b.seconds)
        return {
          runs: [a.r, b.r],
          same: `the same start (${ma.startedAt}) and the same counts in each of its seconds`,
        };
      const [fa, fb] = [ma.environment.k6Format, mb.environment.k6Format];
      const apartMs = Math.abs(Date.parse(ma.startedAt) - Date.parse(mb.startedAt));
      const t = a.totals;
      const exports = new Set([fa, fb]);
      if (exports.has('json') && exports.has('csv') && apartMs <= 1000 && t.join() === b.totals.join())
        return {
          runs: [a.r, b.r],
          same: `its ${fb} export beside its ${fa} export: starts ${fmtInt(apartMs)} ms apart and the same totals (${fmtInt(t[0])} completed, ${fmtInt(t[1])} ok, ${fmtInt(t[2])} dropped)`,
        };
    }
  return null;
}

export async function mergeRuns(o: MergeOptions): Promise<{ dir: string; result: RunResult }> {
  if (o.dirs.length < 2)
    throw new PlateauError(
      '--merge needs at least two run directories',
      'plateau report --merge runs/a runs/b --out runs',
      'merge-usage',
      EXIT.usage,
    );
  const runs = o.dirs.map((d) => ({ dir: d, ...loadRun(path.resolve(d)) }));
  const first = runs[0].meta;
  if (!first.plan)
    throw new PlateauError(
      `${runs[0].dir} has no plan (it stopped before planning)`,
      'merge runs that reached the steps stage',
      'merge-no-plan',
      EXIT.usage,
    );
  const odd = runs.find((r) => !r.meta.plan || !sameTimeline(r.meta.plan.steps, first.plan!.steps));
  if (odd) {
    throw new PlateauError(
      `${odd.dir} has another step timeline than ${runs[0].dir}`,
      'merge only runs of the same plan (same ramp, hold and settle; the rates may differ per instance)',
      'merge-plan-mismatch',
      EXIT.usage,
    );
  }
  // instances of one run offer one traffic: another mix (or rates of another unit) would not add up
  const other = runs.find(
    (r) => mixDifference(first, r.meta) !== null || rateUnitOf(first.traffic) !== rateUnitOf(r.meta.traffic),
  );
  if (other) {
    const what =
      mixDifference(first, other.meta, [runs[0].dir, other.dir]) ??
      `${rateUnitOf(other.meta.traffic)} against ${rateUnitOf(first.traffic)}`;
    throw new PlateauError(
      `${other.dir} offered another traffic than ${runs[0].dir} (${what})`,
      'merge only the instances of one run: the same scenario and mix on every load generator',
      'merge-traffic-mismatch',
      EXIT.usage,
    );
  }
  const twice = sameRunTwice(runs);
  if (twice)
    throw new PlateauError(
      `${twice.runs[1].dir} is ${twice.runs[0].dir} again, ${twice.same} (one k6 output imported twice, its JSON and CSV exports, or a copied run): merged, it would read twice its capacity`,
      "merge the instances of one run, each load generator's output once",
      'merge-same-run',
      EXIT.usage,
    );
  const steps = first.plan.steps.map((s, i) => ({
    ...s,
    ratePerSec: Math.round(runs.reduce((acc, r) => acc + r.meta.plan!.steps[i].ratePerSec, 0) * 1000) / 1000,
  }));
  const records: BucketRecord[] = runs.flatMap((r) =>
    r.records.map((b) => ({ ...b, source: `${r.meta.runId}/${b.source}` })),
  );
  const meta: RunMeta = {
    ...first,
    runId: o.runId ?? `merged-${newRunId()}`,
    status: runs.every((r) => r.meta.status === 'complete') ? 'complete' : 'interrupted',
    startedAt: runs.map((r) => r.meta.startedAt).sort()[0],
    finishedAt:
      runs
        .map((r) => r.meta.finishedAt ?? '')
        .sort()
        .at(-1) || null,
    engine: [...new Set(runs.map((r) => r.meta.engine))].join('+'),
    ...mergedTraffic(runs.map((r) => r.meta)),
    plan: {
      ...first.plan,
      steps,
      expectedSteadySamples: steps.map((s) => Math.round(s.ratePerSec * (s.steadyEndS - s.steadyStartS))),
    },
    vus: {
      preAllocatedVUs: runs.reduce((a, r) => a + (r.meta.vus?.preAllocatedVUs ?? 0), 0),
      maxVUs: runs.reduce((a, r) => a + (r.meta.vus?.maxVUs ?? 0), 0),
      reason: `sum over ${runs.length} merged runs`,
    },
    stages: [
      {
        name: 'steps',
        status: 'pass',
        durationMs: 0,
        detail: `merged ${runs.length} runs: ${runs.map((r) => r.meta.runId).join(', ')}`,
        evidence: runs.map(
          (r) =>
            `${r.meta.runId}: ${r.meta.engine}, ${r.records.length} buckets, ${r.meta.status}, rates ${r.meta.plan!.steps.map((s) => s.ratePerSec).join('/')} req/s`,
        ),
      },
    ],
    interruptedAtStep: null,
    environment: {
      ...first.environment,
      merged: runs.map((r) => `${r.meta.runId} (${r.meta.environment.hostname ?? '?'})`).join(', '),
    },
  };
  const store = RunStore.create(o.outDir, meta);
  for (const r of records) store.appendBucket(r);
  store.close();
  return { dir: store.dir, result: await writeReports(store.dir) };
}

/**
 * The first run's traffic, but a closed model if any merged run was one (no rate was offered to
 * that share of the load), and exact iteration outcomes only if every run had them.
 */
function mergedTraffic(metas: readonly RunMeta[]): Pick<RunMeta, 'traffic'> {
  const t = metas[0].traffic;
  if (!t?.iterations) return t ? { traffic: t } : {};
  const { closedModel: _c, exactOutcomes: _e, ...rest } = t.iterations;
  const closed = metas.find((m) => m.traffic?.iterations?.closedModel)?.traffic?.iterations?.closedModel;
  const exact = metas.every((m) => m.traffic?.iterations?.exactOutcomes === true);
  return {
    traffic: {
      ...t,
      iterations: {
        ...rest,
        ...(closed ? { closedModel: closed } : {}),
        ...(exact ? { exactOutcomes: true as const } : {}),
      },
    },
  };
}
