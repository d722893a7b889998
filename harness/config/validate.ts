/**
 * Turns raw config into a valid PlateauConfig or a list of every problem, each naming its field
 * and the fix (CONVENTIONS 7: three mistakes get three lines).
 */
import { configSchema, type PlateauConfig } from './schema.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { limitProblems } from '../limits.ts';
import { urlSecrets } from '../secret-scrub.ts';

export interface Problem {
  field: string;
  message: string;
}

export function validateConfig(raw: unknown): { config: PlateauConfig; problems: [] } | { config: null; problems: Problem[] } {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ field: fieldOf(i.path), message: describe(i, valueAt(raw, i.path)) }));
    return { config: null, problems };
  }
  const problems = crossFieldProblems(parsed.data);
  return problems.length ? { config: null, problems } : { config: parsed.data, problems: [] };
}

export function parseConfigOrThrow(raw: unknown): PlateauConfig {
  const r = validateConfig(raw);
  if (r.config) return r.config;
  const lines = r.problems.map((p) => `  - ${p.field}: ${p.message}`).join('\n');
  throw new PlateauError(
    `the configuration has ${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}:\n${lines}`,
    'fix the fields named above in plateau.config.ts or the matching CLI flags (plateau run --help)',
    'config-invalid',
    EXIT.usage,
  );
}

function fieldOf(path: PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(config)';
}

/** What to give for a required section that is missing altogether. */
const MISSING_SECTION: Record<string, string> = {
  target: 'missing: give the URL under load, --target http://host:port/path (or target: { url } in plateau.config.ts), or --demo for the embedded demo target',
  steps: 'missing: give the stepped load, --start-rate, --step-rate and --max-rate (or steps: { startPerSec, stepPerSec, maxPerSec } in plateau.config.ts)',
};

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), raw);
}

function describe(issue: { code: string; message: string; keys?: string[]; path: PropertyKey[] }, input: unknown): string {
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove or correct the spelling`;
  }
  const section = issue.path.length === 1 ? MISSING_SECTION[String(issue.path[0])] : undefined;
  if (section && issue.code === 'invalid_type' && input === undefined) return section;
  // a flag given twice reaches the config as an array of its values
  if (issue.code === 'invalid_type' && Array.isArray(input) && input.every((x) => typeof x !== 'object')) return `${issue.message}, got several values (${input.map(String).join(', ')}): give it once`;
  return issue.message;
}

/** Default settle: max(5 s, 10% of the hold), never more than half the hold. */
export function settleSOf(steps: PlateauConfig['steps']): number {
  return steps.settleS ?? Math.ceil(Math.min(Math.max(5, steps.holdS * 0.1), steps.holdS / 2));
}

function crossFieldProblems(c: PlateauConfig): Problem[] {
  const out: Problem[] = [];
  const s = c.steps;
  if (s.maxPerSec < s.startPerSec) {
    out.push({ field: 'steps.maxPerSec', message: `${s.maxPerSec} is below steps.startPerSec ${s.startPerSec}: raise maxPerSec or lower startPerSec` });
  }
  if (settleSOf(s) >= s.holdS) {
    out.push({ field: 'steps.settleS', message: `settle ${settleSOf(s)} s leaves no steady window in a ${s.holdS} s hold: make holdS longer than settleS` });
  }
  if (!Number.isInteger(s.rampS) || !Number.isInteger(s.holdS) || !Number.isInteger(settleSOf(s))) {
    out.push({ field: 'steps', message: 'rampS, holdS and settleS must be whole seconds (windows are judged on one-second buckets)' });
  }
  if (c.metrics && !c.metrics.url && !c.metrics.prometheus) {
    out.push({ field: 'metrics', message: 'give metrics.url (the target\'s /metrics) or metrics.prometheus.url (a Prometheus server scraping it), or remove the section' });
  }
  const { preAllocated, max } = c.vus;
  if (preAllocated !== undefined && max !== undefined && max < preAllocated) {
    out.push({ field: 'vus.max', message: `${max} is below vus.preAllocated ${preAllocated}: raise vus.max` });
  }
  const protocol = new URL(c.target.url).protocol;
  if (!/^https?:$/.test(protocol)) {
    // "localhost:8080" parses as the scheme "localhost:"
    const bare = /^[a-z0-9.-]+:\d+$/i.test(protocol + new URL(c.target.url).pathname);
    out.push({ field: 'target.url', message: `protocol ${protocol} is not supported: use http:// or https://${bare ? `, e.g. http://${c.target.url}` : ''}` });
  }
  const steadyS = s.holdS - settleSOf(s);
  if (steadyS > 0 && s.startPerSec * steadyS < 1) {
    out.push({ field: 'steps.startPerSec', message: `${s.startPerSec} req/s expects no arrival in a ${steadyS} s steady window, so the first step could judge nothing: raise the rate or lengthen the hold` });
  }
  out.push(...urlSecretProblems(c));
  out.push(...limitProblems(c));
  return out;
}

/**
 * A credential written into a URL of the config (user:password@, ?access_token=...) would be sent
 * and recorded in clear: refused, whichever URL it is. The message names the part, never its value.
 */
function urlSecretProblems(c: PlateauConfig): Problem[] {
  const urls: Array<[string, string | undefined]> = [
    ['target.url', c.target.url],
    ['metrics.url', c.metrics?.url],
    ['metrics.prometheus.url', c.metrics?.prometheus?.url],
    ...c.reset.hooks.map((h, i): [string, string | undefined] => [`reset.hooks.${i}.url`, h.kind === 'http' ? h.url : undefined]),
  ];
  const out: Problem[] = [];
  for (const [field, text] of urls) {
    if (text === undefined) continue;
    let url: URL;
    try { url = new URL(text, c.target.url); } catch { continue; }
    const found = urlSecrets(url);
    // Only the scenario's requests can carry a secret from the environment; the probes and hooks send none.
    const fix = field === 'target.url'
      ? 'read the secret from the environment (see README, Scenarios): list the variable in the scenario\'s `secrets` and send it from ctx.env in a header (or in the request URL the scenario builds)'
      : field.startsWith('reset')
        ? 'plateau sends no credentials with a reset call: allow it without them from the load machine, or use a `command` hook that reads the secret from the environment'
        : 'plateau sends no credentials to a metrics endpoint: allow reading it without them from the load machine';
    if (found.userinfo) {
      out.push({ field, message: `the URL carries credentials (user:password@), which would be recorded in clear: remove them; ${fix}` });
    }
    if (found.params.length) {
      out.push({ field, message: `the URL carries a secret-looking parameter (${found.params.map((n) => `"${n}"`).join(', ')}), whose value would be recorded in clear: remove it; ${fix}` });
    }
  }
  return out;
}
