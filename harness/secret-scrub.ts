/**
 * The backstop that keeps secrets out of every output. Secrets come only from the environment and
 * plateau never writes them on purpose; but a target may echo a token into an error body, and a
 * scenario's check() message may quote a header. Every line the run prints and every text the run
 * store writes passes through this scrubber, so the value of a secret is replaced wherever it lands.
 *
 * Which values: those of the environment variables the scenario declares (`secrets`), and of any
 * variable whose name looks secret (TOKEN, SECRET, PASSWORD, KEY, ...). Values shorter than
 * MIN_SECRET_CHARS are left alone: replacing "1" everywhere would destroy the report and protect
 * nothing; so are number-like values (digits could match inside run.json's numbers): keep such a
 * secret out of error messages by other means.
 */

export type Scrub = (text: string) => string;

export const REDACTED = '[redacted]';
const MIN_SECRET_CHARS = 6;
const SECRET_NAME = /secret|token|passw(or)?d|apikey|api_key|credential|authorization|bearer|hmac|(^|_)key$/i;
/** A number-like value could match digits inside run.json's numbers and break its JSON: left alone. */
const NUMBER_LIKE = /^[\d.+\-eE]+$/;

/** The secret values of this run, longest first (so a secret containing another is replaced whole). */
export function secretValues(declared: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const names = new Set(declared);
  for (const name of Object.keys(env)) if (SECRET_NAME.test(name)) names.add(name);
  const values = new Set<string>();
  for (const name of names) {
    const v = env[name];
    if (v === undefined || v.length < MIN_SECRET_CHARS || NUMBER_LIKE.test(v)) continue;
    values.add(v);
    const jsonForm = JSON.stringify(v).slice(1, -1);
    if (jsonForm !== v) values.add(jsonForm);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

export function secretScrubber(declared: readonly string[], env: NodeJS.ProcessEnv): Scrub {
  const values = secretValues(declared, env);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  };
}
