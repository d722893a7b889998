/**
 * The data model shared by the engine (which produces Buckets), the analysis (which turns a run
 * store into a RunResult) and the renderers (which turn a RunResult into text).
 * Types only: no code, no imports of I/O. Split by lifecycle: stored records, the plan, results,
 * models (analysis/types/); this module gathers them.
 */
export * from './types/records.ts';
export * from './types/plan.ts';
export * from './types/results.ts';
export * from './types/models.ts';
export * from './types/server.ts';
export * from './types/distribution.ts';
