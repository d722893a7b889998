/**
 * The order vitest starts test files in: the slow integration files first, longest first, so that
 * the two files running at a time end together instead of one long file running on alone at the
 * end (on a fresh clone vitest has no durations of its own and starts the largest files first:
 * the PromQL pipeline's 24 s and the warmup's 14 s then ran last, about 10 s of the suite with one
 * worker idle). Every other file follows, in vitest's own order.
 *
 * SECONDS: each file's time beside the CPU hog in the fresh-clone CI of 2026-12-06, 05:48 UTC
 * (the fault matrix 38 to 56 s in the day's runs), but for four files whose tests shed waiting or
 * moved out of the integration set later that day (k6-engine, threads, cpu-quota: that figure less
 * the share of it they shed, as measured beside busy loops; native, 2026-12-06 evening: that figure
 * times the ratio of its medians alone after and before more of its light runs went at once, 23.7 /
 * 28.1 s of tests in 3 alternating runs each on a machine loaded by other work). A file that
 * grows past a few seconds belongs here; a stale figure costs only order, never a result.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SECONDS: Record<string, number> = {
  'test/faults.test.ts': 44,
  'test/interrupt.test.ts': 29,
  'test/tls.test.ts': 27,
  'test/promql-pipeline.test.ts': 25,
  'test/pipeline.test.ts': 25,
  'harness/engine/native.test.ts': 24,
  'harness/engine/workers.test.ts': 21,
  'test/downstreams-redis.test.ts': 17,
  'test/warmup.test.ts': 15,
  'test/promql.test.ts': 15,
  'test/threads.test.ts': 14,
  'test/k6-engine.test.ts': 10,
  'test/cpu-quota.test.ts': 13,
  'test/stages.test.ts': 13,
  'test/server-histogram.test.ts': 13,
  'test/reset-postgres.test.ts': 12,
  'test/mix-pipeline.test.ts': 11,
  'test/secrets.test.ts': 10,
  'test/refused-names.test.ts': 10,
  'test/reset-mariadb.test.ts': 10,
  'test/demo-capacity.test.ts': 10,
  'test/limits.test.ts': 9,
  'test/bad-input.test.ts': 9,
  'harness/engine/deadline.test.ts': 9,
  'test/mix-native.test.ts': 8,
  'test/nginx.test.ts': 6,
  'test/k8s-run.test.ts': 8,
  'test/demo-modes.test.ts': 7,
};

/** Seconds a file is known to take (0 when it is not in SECONDS), by its path from the root. */
export function knownSeconds(root: string, moduleId: string): number {
  return SECONDS[path.relative(root, moduleId).split(path.sep).join('/')] ?? 0;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    // Array.prototype.sort is stable: the files it does not know keep vitest's order, after the rest
    return [...(await super.sort(files))].sort(
      (a, b) => knownSeconds(root, b.moduleId) - knownSeconds(root, a.moduleId),
    );
  }
}
