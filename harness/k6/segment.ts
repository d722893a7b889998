/**
 * Moved to harness/k6/engine/segment.ts (issue 26: harness/k6/ split into engine, output and
 * import). Kept only for the steps stage's import until it takes the bound from
 * harness/engine/create.ts; remove this file then.
 */
export { rerunVusBound } from '../engine/create.ts';
