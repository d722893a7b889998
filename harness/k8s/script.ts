/**
 * The k6 script a TestRun's runners run: the scenario bundled as the k6 engine bundles it, the
 * whole plan as its options (each runner scales every rate to its segment), maxVUs rounded up to
 * a multiple of N (the operator's sequence 0,1/N,...,1 has denominator N) so that k6 gives every
 * runner exactly its share. The shell edge of manifest.ts: config, scenario and plan in, text out.
 */
import type { PlateauConfig } from '../config/schema.ts';
import { buildPlan, type Plan } from '../../analysis/plan.ts';
import type { Scenario } from '../scenario/types.ts';
import type { RunIds } from '../environment.ts';
import { trafficOf, trafficSummary } from '../scenario/traffic.ts';
import { rateUnitOf } from '../../analysis/format.ts';
import type { TrafficRecord } from '../../analysis/types.ts';
import { bundleK6Script } from '../k6/engine/bundle.ts';
import { k6Options } from '../k6/engine/options.ts';
import { k6Vus } from '../k6/engine/segment.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { ManifestError, operatorSegment, operatorSequence, type Manifests } from './manifest.ts';

/** What both k8s commands start from: the config, the bundled script and the manifests. */
export interface Prepared {
  manifests: Manifests;
  script: K8sScript;
  runId: string;
  /** The key of the ids the runners send (environment.ts runIds). */
  idKey: string;
  config: PlateauConfig;
}

export interface K8sScript {
  text: string;
  plan: Plan;
  /** The traffic the scenario offers (its mix, transactions marked), for run.json and the rate unit. */
  traffic: TrafficRecord;
  /** The maxVUs every runner's split comes from (a multiple of N), and why. */
  maxVUs: number;
  vusReason: string;
}

/** A ManifestError as the CLI's usage error (exit 2), with its message and fix. */
export function usageOf(err: unknown): never {
  if (err instanceof ManifestError) throw new PlateauError(err.message, err.hint, 'k8s-usage', EXIT.usage);
  throw err;
}

export async function k8sScript(config: PlateauConfig, scenario: Scenario, ids: RunIds, n: number): Promise<K8sScript> {
  if (config.k6.executionSegment || config.k6.executionSegmentSequence)
    throw new PlateauError(
      `k8s: the config sets k6.executionSegment${config.k6.executionSegmentSequence ? 'Sequence' : ''}, but k6-operator gives each runner its segment itself`,
      'remove k6.executionSegment and k6.executionSegmentSequence from the config (or the flags) for a k8s run: --parallelism says how many runners share the arrivals',
      'k8s-segment-given',
      EXIT.usage,
    );
  if (Object.keys(scenario.data ?? {}).length > 0)
    throw new PlateauError(
      `k8s: the scenario reads data files (${Object.keys(scenario.data ?? {}).join(', ')}) from this machine's paths, which the runner pods do not have`,
      'run this scenario with `plateau run --engine k6`, or drop its data sources for a k8s run (mounting them into the runners is not built yet)',
      'k8s-data-files',
      EXIT.usage,
    );
  const traffic = trafficSummary(trafficOf(scenario));
  const plan = buildPlan(config, null, rateUnitOf(traffic));
  // runner 1's segment of the operator's sequence: the sequence's denominator (N) is what maxVUs is rounded to
  const segmented = {
    ...config,
    k6: { ...config.k6, executionSegment: operatorSegment(1, n), executionSegmentSequence: operatorSequence(n) },
  };
  const vus = n === 1 ? plan.vus : k6Vus(plan.vus, segmented);
  const text = await bundleK6Script({
    scenarioPath: config.scenario ?? null,
    scenario,
    targetUrl: config.target.url,
    options: k6Options({ ...plan, vus }, config.gracefulStopS),
    runtime: {
      runId: ids.runId,
      idKey: ids.idKey,
      idPrefix: scenario.ids?.prefix ?? '',
      origin: new URL(config.target.url).origin,
      seqOffset: 0,
      timeoutMs: config.http.timeoutMs,
      maxBodyBytes: config.http.maxBodyBytes,
      requestName: scenario.name ?? 'request',
      checkName: `${scenario.name ?? 'request'}: check`,
      data: {},
    },
  });
  return { text, plan: { ...plan, vus }, traffic, maxVUs: vus.maxVUs, vusReason: vus.reason };
}
