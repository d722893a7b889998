/**
 * run.json's schema versions. 2 (current) stores the steps stage's attempts (`attempts`: plan,
 * attempt, maxVUs, the action taken) and the decision policy; 1 stored `executed` step plans with
 * the live run's classification written onto them. A version-1 file is upgraded on reading: its
 * plans become attempts with no stored action (the analysis derives it), its flags are dropped
 * (they are re-derived from the evidence), and the policy is read from its recorded config.
 */
import type { AttemptRecord, DecisionPolicy, Rules, StepPlan } from '../../analysis/types.ts';
import { DEFAULT_GENERATOR_BOUNDS } from '../../analysis/generator-symptoms.ts';
import { PlateauError, EXIT } from '../errors.ts';

export const RUN_SCHEMA_VERSION = 2;

type Raw = Record<string, unknown>;

/** The run.json object at the current version; throws for a version this plateau does not know. */
export function upgradeRunJson(raw: Raw, file: string): Raw {
  const v = raw.schemaVersion;
  // a missing version is a damaged file: the shape check names it with the rest
  if (v === RUN_SCHEMA_VERSION || v === undefined) return raw;
  if (v === 1) return fromV1(raw);
  const newer = typeof v === 'number' && v > RUN_SCHEMA_VERSION;
  throw new PlateauError(
    `${file} has schemaVersion ${JSON.stringify(v)}; this plateau reads versions 1 and ${RUN_SCHEMA_VERSION}`,
    newer
      ? 'it was written by a newer plateau: read it with that version (or update this checkout)'
      : 'it is not a run.json plateau wrote: pass a run directory under runs/',
    'run-version',
    EXIT.usage,
  );
}

function fromV1(raw: Raw): Raw {
  const { executed, ...rest } = raw as Raw & { executed?: (StepPlan & { attempt?: number })[] | null };
  const maxVUs = (raw.vus as { maxVUs?: number } | null)?.maxVUs ?? 0;
  const attempts: AttemptRecord[] | undefined = executed?.map((e) => ({
    index: e.index,
    ratePerSec: e.ratePerSec,
    rampStartS: e.rampStartS,
    holdStartS: e.holdStartS,
    holdEndS: e.holdEndS,
    steadyStartS: e.steadyStartS,
    steadyEndS: e.steadyEndS,
    attempt: e.attempt ?? 1,
    maxVUs,
  }));
  const rules = (raw.plan as { rules?: Rules } | null)?.rules;
  return {
    ...rest,
    schemaVersion: RUN_SCHEMA_VERSION,
    ...(attempts?.length ? { attempts } : {}),
    ...(rules ? { policy: policyFromConfig(raw.config, rules, maxVUs) } : {}),
  };
}

/** The decision policy a version-1 run used, from its recorded (redacted) config; the defaults where it says nothing. */
export function policyFromConfig(config: unknown, rules: Rules, maxVUs: number): DecisionPolicy {
  const c = (config ?? {}) as {
    verdicts?: Record<string, unknown>;
    topology?: { rerun?: unknown };
    limits?: { maxInFlight?: unknown };
  };
  const v = c.verdicts ?? {};
  const num = (x: unknown, d: number) => (typeof x === 'number' && Number.isFinite(x) ? x : d);
  const bound = Math.min(num(v.maxVUsBound, 5000), num(c.limits?.maxInFlight, 10_000));
  return {
    rules,
    bounds: {
      lagP99MaxMs: num(v.lagP99MaxMs, DEFAULT_GENERATOR_BOUNDS.lagP99MaxMs),
      loopDelayMaxMs: num(v.loopDelayMaxMs, DEFAULT_GENERATOR_BOUNDS.loopDelayMaxMs),
      generatorBusyMax: num(v.generatorBusyMax, DEFAULT_GENERATOR_BOUNDS.generatorBusyMax!),
      tailFactor: num(v.tailFactor, DEFAULT_GENERATOR_BOUNDS.tailFactor),
    },
    confirmFailedStep: typeof v.confirmFailedStep === 'boolean' ? v.confirmFailedStep : true,
    rerunContaminated: c.topology?.rerun === true,
    maxVUsBound: Math.max(bound, maxVUs),
  };
}
