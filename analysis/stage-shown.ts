/**
 * The status a stage is shown with (the Stages tables, summary.json, the terminal's stage lines).
 * A warmup that reached warmup.maxS without the target becoming stable is recorded `pass`: it ran
 * its course, and everything that uses a finished warmup as evidence (the VUs and threads sized
 * from it, coldTarget) uses it. Shown as `pass`, a table of all passes hid that the steps began on
 * a target that had not settled; shown as `warn`, with its detail saying why. Derived here from the
 * stored evidence, never recorded, so a stored run reads it as well (docs/decisions/056).
 */
import type { StageOutcome, StageShown } from './types.ts';

/** A warmup that ran its course (`pass`: not interrupted, not failed) without the target settling. */
export function unsettledWarmup(s: Pick<StageOutcome, 'name' | 'status' | 'warmup'>): boolean {
  return s.name === 'warmup' && s.status === 'pass' && s.warmup?.stable === false;
}

/** The stage as shown: `warn` for an unsettled warmup, else as recorded. */
export function shownStage(s: StageOutcome): StageShown {
  return unsettledWarmup(s) ? { ...s, status: 'warn' } : s;
}
