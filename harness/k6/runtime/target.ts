/**
 * The address a k6 script written for the user (plateau k6-script) loads: the origin it was written
 * with, unless PLATEAU_TARGET in k6's environment gives another address of the same service (the
 * service seen from a load machine in its cluster, behind another name or port). Only its origin is
 * taken: the scenario's paths stay the scenario's. When plateau drives k6 itself the script loads
 * the run's own target, whatever the environment. Runs inside k6: no Node API.
 */
import type { RuntimeConfig } from './config.ts';

/** The environment variable that points a written script at another address of its service. */
export const TARGET_ENV = 'PLATEAU_TARGET';

/** `cfg` with its origin taken from PLATEAU_TARGET where a script written for the user is given one; throws on one that is no http(s) URL. */
export function withTargetFrom(cfg: RuntimeConfig, env: Record<string, string | undefined>): RuntimeConfig {
  const given = env[TARGET_ENV];
  if (cfg.idsAtStart === undefined || given === undefined || given === '') return cfg;
  const origin = /^(https?:\/\/[^/?#\s@]+)(?:[/?#]|$)/i.exec(given.trim());
  if (origin === null)
    throw new Error(
      `${TARGET_ENV}=${given} is no http(s) URL: give the service's address, e.g. k6 run -e ${TARGET_ENV}=http://10.0.0.5:8080 (its path, if any, is the scenario's)`,
    );
  return { ...cfg, origin: origin[1] };
}
