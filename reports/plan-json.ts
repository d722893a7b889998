/**
 * `plateau plan --json`: the plan as one document for machines, with every figure the text plan
 * shows (steps with their rates and windows, VU sizing, durations, expected samples, warnings).
 * Pure: the shell passes the plan and the config's settings in, text comes out.
 */
import { tailTrustByShare, trustworthyPercentiles, type TailTrust } from '../analysis/percentiles.ts';
import type { Rules, StageName, StepPlan, VuSizing } from '../analysis/types.ts';
import { unitOf } from '../analysis/format.ts';
import { judgedS, UNDER_LOAD } from '../analysis/settle-check.ts';
import { planStages, type PlanThreads } from './plan-stages.ts';
import { secretNotSetText, transactionsUnmeasuredText } from './plan-warnings.ts';
import {
  loadAtMostS,
  type PlanDataSource,
  planSlo,
  type PlanFacts,
  type PlanSlo,
  type PlanTextResetHook,
  vusReasonText,
} from './plan-text.ts';

/**
 * 2 (12-06): a `few-samples` warning's `step` is 1-based, as every --json document and report
 * numbers steps (it was the step's 0-based index; `steps[].index` stays 0-based, as in summary.json);
 * `durations.atMostS` counts a rerun of each step (at most limits.maxDurationS), and `stages` leaves out
 * a warmup that will not run.
 * 3 (12-08): `stages` is the run's own list (analysis STAGE_NAMES): it holds `threads` where that
 * stage sizes the steps' threads and leaves out a reset with nothing to do, as a warmup that will
 * not run; `threads` says whether it sizes them, or why all run; a `transaction-unmeasured`
 * warning names the transactions only preflight measures, and what it refuses of them.
 */
export const PLAN_JSON_SCHEMA_VERSION = 3;

/** A reset hook as the plan shows it (an SQL hook by its statement count and guarded tables), as the text plan reads it. */
export type PlanResetHook = PlanTextResetHook;

export interface PlanJsonStep extends StepPlan {
  /** Arrivals the steady window is expected to hold (rate x steady seconds). */
  expectedSamples: number;
  /** Percentiles those samples can back. */
  trustedPercentiles: number[];
  /** The others, each with the samples it would need. */
  untrustedPercentiles: { q: number; requiredSamples: number }[];
}

export type PlanJsonWarning =
  | {
      code: 'last-step-below-max';
      lastRatePerSec: number;
      maxPerSec: number;
      startPerSec: number;
      stepPerSec: number;
      text: string;
    }
  | {
      code: 'few-samples';
      /** 1-based, as the text says it. */
      step: number;
      expectedSamples: number;
      untrusted: { q: number; requiredSamples: number }[];
      text: string;
    }
  | {
      /**
       * The mix's transactions, which plan cannot measure (only sending them does): preflight
       * refuses a sample arrival longer than `settleS` (fix: settleS at least underLoad x its
       * seconds, holdS that plus judgedS) or past `transactionTimeoutMs`.
       */
      code: 'transaction-unmeasured';
      transactions: string[];
      settleS: number;
      judgedS: number;
      underLoad: number;
      transactionTimeoutMs: number | null;
      text: string;
    }
  | {
      /** A secret the scenario lists is not set where plan ran: a run there would be refused at preflight. */
      code: 'secret-not-set';
      variable: string;
      text: string;
    };

/** The document `plateau plan --json` prints. */
export interface PlanDocument {
  schemaVersion: typeof PLAN_JSON_SCHEMA_VERSION;
  kind: 'plateau-plan';
  target: string;
  /** The scenario module, or null for a GET on the target. */
  scenario: { name: string; module: string } | null;
  /**
   * The mix the arrivals are shared over (each entry's weight and share, transactions marked, and
   * from which step its p99, then its p90, rests on enough of its share of the expected samples)
   * and whether the steps' VUs may be re-sized from the warmup's measured time per arrival; null
   * for one request per arrival.
   */
  traffic: PlanJsonTraffic | null;
  /** The stages the run goes through, in its order; those it will skip (see reset, warmup, threads) left out. */
  stages: StageName[];
  reset: PlanResetHook[];
  /** The scenario's data sources: rows, order, and the most arrivals the plan can make of a unique one. */
  data: PlanDataSource[];
  warmup:
    | { enabled: false }
    | { enabled: true; ratePerSec: number; stableWindows: number; windowS: number; tolerance: number; maxS: number };
  /** The threads stage: it sizes the steps' threads after the warmup (of those started), or why all run. */
  threads: PlanThreads;
  timing: { rampS: number; holdS: number; settleS: number; steadyS: number };
  rules: Rules;
  engine: { kind: string; executionSegment: string | null; segmentShare: number | null };
  vus: VuSizing;
  steps: PlanJsonStep[];
  /** atMostS: the most load a run makes, a rerun of each step included, at most limits.maxDurationS (the run stops earlier at the plateau). */
  durations: { stepsS: number; warmupMaxS: number | null; atMostS: number };
  warnings: PlanJsonWarning[];
  /** What the run reads of the server (config metrics); null without metrics. */
  metrics: PlanFacts['metrics'] | null;
  /** The latency objective and the first step whose expected samples let it be judged (0-based); null without slo. */
  slo: PlanSlo | null;
}

export interface PlanTraffic {
  entries: { name: string; weight: number; share: number; transaction: boolean }[];
  vusFromWarmup: boolean;
}

export interface PlanJsonTraffic extends PlanTraffic {
  entries: (PlanTraffic['entries'][number] & { tails: TailTrust[] })[];
}

/** What the JSON adds to the plan's facts (narrow: no harness type crosses into reports/). */
export interface PlanJsonInput extends PlanFacts {
  scenario: { name: string; module: string } | null;
  traffic: PlanTraffic | null;
  engine: { kind: string; executionSegment: string | null; segmentShare: number | null };
}

function planSteps(p: PlanJsonInput['plan']): PlanJsonStep[] {
  return p.steps.map((s, i) => {
    const expectedSamples = p.expectedSteadySamples[i] ?? 0;
    const trust = trustworthyPercentiles(expectedSamples, p.rules.minTailSamples);
    return {
      ...s,
      expectedSamples,
      trustedPercentiles: trust.filter((t) => t.trusted).map((t) => t.q),
      untrustedPercentiles: trust
        .filter((t) => !t.trusted)
        .map((t) => ({ q: t.q, requiredSamples: t.requiredSamples })),
    };
  });
}

function planWarnings(input: PlanJsonInput, steps: PlanJsonStep[]): PlanJsonWarning[] {
  const out: PlanJsonWarning[] = [];
  const c = input.steps;
  const last = steps.at(-1)?.ratePerSec;
  // the same float slack as the text plan: a last step within 1e-9 of maxPerSec reaches it
  if (last !== undefined && last < c.maxPerSec - 1e-9) {
    out.push({
      code: 'last-step-below-max',
      lastRatePerSec: last,
      maxPerSec: c.maxPerSec,
      startPerSec: c.startPerSec,
      stepPerSec: c.stepPerSec,
      text: `the last step is ${last} ${unitOf(input.plan.rules)}: maxPerSec ${c.maxPerSec} is not startPerSec ${c.startPerSec} plus a whole number of stepPerSec ${c.stepPerSec}`,
    });
  }
  for (const s of steps.filter((x) => x.untrustedPercentiles.length > 0)) {
    out.push({
      code: 'few-samples',
      step: s.index + 1,
      expectedSamples: s.expectedSamples,
      untrusted: s.untrustedPercentiles,
      text: `step ${s.index + 1} expects ${s.expectedSamples} samples: ${s.untrustedPercentiles.map((u) => `p${u.q} needs ${u.requiredSamples}`).join(', ')}; longer holds give more`,
    });
  }
  for (const variable of input.secretsNotSet ?? [])
    out.push({ code: 'secret-not-set', variable, text: secretNotSetText(variable) });
  const unmeasured = transactionsUnmeasuredText({ ...input, settleS: input.plan.settleS, holdS: c.holdS });
  if (unmeasured)
    out.push({
      code: 'transaction-unmeasured',
      transactions: input.transactions ?? [],
      settleS: input.plan.settleS,
      judgedS: judgedS({ holdS: input.steps.holdS, settleS: input.plan.settleS }),
      underLoad: UNDER_LOAD,
      transactionTimeoutMs: input.transactionTimeoutMs ?? null,
      text: unmeasured,
    });
  return out;
}

export function planDocument(input: PlanJsonInput): PlanDocument {
  const { plan, warmup: w } = input;
  const steps = planSteps(plan);
  const warmupMaxS = w.enabled ? w.maxS : null;
  return {
    schemaVersion: PLAN_JSON_SCHEMA_VERSION,
    kind: 'plateau-plan',
    target: plan.target,
    scenario: input.scenario,
    traffic: input.traffic && {
      ...input.traffic,
      entries: input.traffic.entries.map((e) => ({
        ...e,
        tails: tailTrustByShare(plan.expectedSteadySamples, e.share, plan.rules.minTailSamples),
      })),
    },
    stages: planStages(input),
    reset: input.reset,
    data: input.data ?? [],
    warmup: w.enabled
      ? {
          enabled: true,
          ratePerSec: w.ratePerSec,
          stableWindows: w.stableWindows,
          windowS: w.windowS,
          tolerance: w.tolerance,
          maxS: w.maxS,
        }
      : { enabled: false },
    threads: input.threads,
    timing: {
      rampS: input.steps.rampS,
      holdS: input.steps.holdS,
      settleS: plan.settleS,
      steadyS: input.steps.holdS - plan.settleS,
    },
    rules: plan.rules,
    engine: input.engine,
    vus: { ...plan.vus, reason: vusReasonText(input) },
    steps,
    // a rerun of each step and the warmup's bound plus its 1 s ramp, as the text plan counts them
    durations: {
      stepsS: plan.durationS,
      warmupMaxS,
      atMostS: loadAtMostS(input).atMostS,
    },
    warnings: planWarnings(input, steps),
    metrics: input.metrics ?? null,
    slo: planSlo(input),
  };
}

export function renderPlanJson(input: PlanJsonInput): string {
  return `${JSON.stringify(planDocument(input), null, 2)}\n`;
}
