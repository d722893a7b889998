/**
 * Preflight with engine k6: the native checks (target, secrets, ids, a sample request), then k6
 * found and recent enough, the execution segment readable, and the scenario bundled for k6 (a
 * scenario that imports Node APIs fails here, before any load).
 */
import type { PlateauConfig } from '../../config/schema.ts';
import type { StageResult } from '../../pipeline/stage.ts';
import { requireK6 } from './binary.ts';
import { bundleK6Script } from './bundle.ts';
import { k6Options } from './options.ts';
import { segmentLcd, segmentLength } from './segment.ts';

export async function withK6Preflight<T>(
  config: PlateauConfig,
  env: NodeJS.ProcessEnv,
  base: () => Promise<StageResult<T>>,
): Promise<StageResult<T>> {
  const k6 = requireK6(env);
  const share = segmentLength(config.k6.executionSegment);
  const lcd = segmentLcd(config.k6.executionSegment, config.k6.executionSegmentSequence);
  const r = await base();
  const script = await bundleK6Script({
    scenarioPath: config.scenario ?? null,
    targetUrl: config.target.url,
    options: k6Options(
      {
        segments: [{ durationS: 1, fromPerSec: 0, toPerSec: 1 }],
        vus: { preAllocatedVUs: 1, maxVUs: 1, reason: 'preflight' },
      },
      0,
    ),
    runtime: {
      runId: 'preflight',
      idKey: 'preflight',
      idPrefix: '',
      origin: new URL(config.target.url).origin,
      seqOffset: 0,
      timeoutMs: 1000,
      requestName: 'preflight',
      checkName: 'preflight',
    },
  });
  const evidence = [
    ...r.evidence,
    `k6 ${k6.version} at ${k6.path}`,
    `scenario bundled for k6 (${(script.length / 1024).toFixed(1)} KiB)`,
    ...(config.k6.executionSegment
      ? [
          `execution segment ${config.k6.executionSegment}: this instance runs ${(share * 100).toFixed(1)}% of every rate${lcd > 1 ? ` (maxVUs a multiple of ${lcd}, so that k6 keeps that share)` : ''}`,
        ]
      : []),
  ];
  return { ...r, detail: `${r.detail}; k6 ${k6.version} ready`, evidence };
}
