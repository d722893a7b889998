/** The pipeline's phases, as buckets and probe samples name them: one definition for every room. */
export const WARMUP_PHASE = 'warmup';
export const STEPS_PHASE = 'steps';
