/**
 * Reads plateau.config.ts (any module whose default export is the config), lays the CLI's flags
 * over it, and validates the result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PlateauError, EXIT } from '../errors.ts';
import type { PlateauConfig } from './schema.ts';
import { parseConfigOrThrow } from './validate.ts';

export interface Overrides {
  target?: string;
  scenario?: string;
  startRate?: number;
  stepRate?: number;
  maxRate?: number;
  hold?: number;
  ramp?: number;
  settle?: number;
  vus?: number;
  maxVus?: number;
  timeoutMs?: number;
  httpClient?: 'undici' | 'socket';
  runId?: string;
  out?: string;
  warmup?: boolean;
  workers?: 'auto' | number;
  engine?: 'native' | 'k6';
  executionSegment?: string;
  executionSegmentSequence?: string;
  k6Out?: string;
}

export async function readConfigFile(file: string | undefined): Promise<Record<string, unknown>> {
  const candidate = file ?? (fs.existsSync('plateau.config.ts') ? 'plateau.config.ts' : undefined);
  if (!candidate) return {};
  const abs = path.resolve(candidate);
  if (!fs.existsSync(abs)) {
    throw new PlateauError(`config file ${abs} does not exist`, 'pass --config path/to/plateau.config.ts, or run from the directory that holds it', 'config-missing', EXIT.usage);
  }
  const mod = (await import(pathToFileURL(abs).href)) as { default?: unknown };
  if (!mod.default || typeof mod.default !== 'object') {
    throw new PlateauError(`config file ${abs} has no default export`, 'end it with `export default defineConfig({ ... })`', 'config-invalid', EXIT.usage);
  }
  return structuredClone(mod.default) as Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const sub = (o: Obj, k: string): Obj => (o[k] ??= {}) as Obj;

/** Sets only the flags that were given; the rest of the file stays as it is. */
export function applyOverrides(raw: Obj, o: Overrides): Obj {
  const c: Obj = structuredClone(raw);
  const set = (section: string, key: string, v: unknown) => { if (v !== undefined) sub(c, section)[key] = v; };
  set('target', 'url', o.target);
  if (o.scenario !== undefined) c.scenario = o.scenario;
  set('steps', 'startPerSec', o.startRate);
  set('steps', 'stepPerSec', o.stepRate);
  set('steps', 'maxPerSec', o.maxRate);
  set('steps', 'holdS', o.hold);
  set('steps', 'rampS', o.ramp);
  set('steps', 'settleS', o.settle);
  set('vus', 'preAllocated', o.vus);
  set('vus', 'max', o.maxVus);
  set('http', 'timeoutMs', o.timeoutMs);
  set('http', 'client', o.httpClient);
  set('output', 'runId', o.runId);
  set('output', 'dir', o.out);
  set('warmup', 'enabled', o.warmup);
  if (o.workers !== undefined) c.workers = o.workers;
  if (o.engine !== undefined) c.engine = o.engine;
  set('k6', 'executionSegment', o.executionSegment);
  set('k6', 'executionSegmentSequence', o.executionSegmentSequence);
  set('k6', 'out', o.k6Out);
  return c;
}

export async function loadConfig(file: string | undefined, overrides: Overrides, adjust: (raw: Obj) => Obj = (r) => r): Promise<PlateauConfig> {
  return parseConfigOrThrow(adjust(applyOverrides(await readConfigFile(file), overrides)));
}
