/**
 * Finding k6: $K6_BIN, else `k6` on PATH; its version from `k6 version` ("k6 v0.49.0 (...)").
 * Absent or too old is a PlateauError that says how to get it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PlateauError, EXIT } from '../../errors.ts';

/** ramping-arrival-rate, execution.scenario.iterationInTest and rfc3339/unix_milli CSV need >= 0.44. */
export const K6_MIN_VERSION = [0, 44, 0] as const;

export interface K6Binary {
  path: string;
  version: string;
}

export function findK6(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.K6_BIN) return fs.existsSync(env.K6_BIN) ? env.K6_BIN : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? 'k6.exe' : 'k6');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

export function parseK6Version(text: string): [number, number, number] | null {
  const m = /v?(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
}

/** The k6 to run, checked; throws with the fix when there is none or it is too old. */
export function requireK6(env: NodeJS.ProcessEnv = process.env): K6Binary {
  const bin = findK6(env);
  if (!bin) {
    throw new PlateauError(
      env.K6_BIN ? `K6_BIN points at ${env.K6_BIN}, which does not exist` : 'k6 is not on PATH (engine k6)',
      'install k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH, or set K6_BIN=/path/to/k6; or run with --engine native',
      'k6-missing',
      EXIT.preflight,
    );
  }
  let out: string;
  try {
    out = execFileSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new PlateauError(
      `${bin} version failed: ${(err as Error).message}`,
      'check that K6_BIN / PATH points at a working k6 binary',
      'k6-broken',
      EXIT.preflight,
    );
  }
  const v = parseK6Version(out);
  if (!v || !atLeast(v, K6_MIN_VERSION)) {
    throw new PlateauError(
      `${bin} reports "${out.trim()}"; plateau needs k6 >= v${K6_MIN_VERSION.join('.')}`,
      'upgrade k6 (or point K6_BIN at a newer one)',
      'k6-too-old',
      EXIT.preflight,
    );
  }
  return { path: bin, version: `v${v.join('.')}` };
}

/** k6 run's exit codes (errext/exitcodes), in words for the report. */
export function k6ExitMeaning(code: number | null, signal: string | null): string {
  if (signal) return `killed by ${signal}`;
  switch (code) {
    case 0:
      return 'k6 exited 0 (ok)';
    case 99:
      return 'k6 exited 99: thresholds crossed';
    case 97:
      return 'k6 exited 97: script error';
    case 104:
      return 'k6 exited 104: invalid config';
    case 105:
      return 'k6 exited 105: aborted by a signal (plateau stopped it)';
    case 107:
      return 'k6 exited 107: script exception';
    case 108:
      return 'k6 exited 108: test aborted (abortOnFail threshold or test.abort())';
    default:
      return `k6 exited ${code}`;
  }
}
