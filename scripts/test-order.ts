/**
 * The order vitest starts test files in: the slow integration files first, longest first, so that
 * the two files running at a time end together instead of one long file running on alone at the
 * end (on a fresh clone vitest has no durations of its own and starts the largest files first:
 * the PromQL pipeline's 24 s and the warmup's 14 s then ran last, about 10 s of the suite with one
 * worker idle). Every other file follows, in vitest's own order.
 *
 * SECONDS: each file's time beside the CPU hog in the last fresh-clone CI before 2026-12-07, or,
 * for the files whose waiting was cut on 12-07 afternoon (faults, promql, interrupt, tls, cpu-quota,
 * server-histogram, downstreams-redis), the figure measured beside the hog after the cut. Files
 * under 9 s keep their figure of 12-06. A file that grows past a few seconds belongs here; a
 * stale figure costs only order, never a result.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SECONDS: Record<string, number> = {
  'test/promql.test.ts': 33,
  'harness/engine/workers.test.ts': 27,
  'test/pipeline.test.ts': 26,
  'test/faults.test.ts': 25,
  'harness/engine/native.test.ts': 23,
  'test/interrupt.test.ts': 22,
  'test/downstreams-redis.test.ts': 20,
  'test/tls.test.ts': 17,
  'test/server-histogram.test.ts': 15,
  'test/warmup.test.ts': 14,
  'test/threads.test.ts': 14,
  'test/secrets.test.ts': 14,
  'test/cpu-quota.test.ts': 12,
  'test/bad-input.test.ts': 14,
  'test/stages.test.ts': 22,
  'test/reset-postgres.test.ts': 11,
  'harness/engine/deadline.test.ts': 11,
  'test/reset-mariadb.test.ts': 11,
  'test/mix-pipeline.test.ts': 11,
  'test/k6-engine.test.ts': 10,
  'test/refused-names.test.ts': 10,
  'test/demo-capacity.test.ts': 10,
  'test/limits.test.ts': 9,
  'test/mix-native.test.ts': 8,
  'test/k8s-run.test.ts': 8,
  'test/demo-modes.test.ts': 7,
  // measured alone, not beside the hog (12-07): 6.4 s of tests
  'test/failures-any-rate.test.ts': 7,
  'test/nginx.test.ts': 6,
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
