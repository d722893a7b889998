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
 * secret out of error messages by other means. A secret's start right before a cut message's
 * mark (cut-message.ts) is replaced too: that is what the cut left of it.
 *
 * Secrets written into a URL are removed as well, wherever the URL lands: its userinfo
 * (`https://user:pass@host` becomes `https://host`) and the value of a secret-looking query or
 * fragment parameter (`?access_token=[redacted]`). The config refuses both (config/validate.ts);
 * this is the backstop for a URL that reached the store another way (an old run.json, a target's
 * error message, `plateau import k6 --target`).
 */

import { CUT_MARK } from './cut-message.ts';

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
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    for (const v of values) out = cutSecrets(out, v);
    return scrubUrlSecrets(out);
  };
}

/** A secret's start shorter than this before a cut's mark is left: too little of it to matter, and likely ordinary text. */
const CUT_PREFIX_MIN = 3;

/**
 * A message cut to length (cutMessage: an error sample at 300 characters in the native engine, 200
 * for k6's errors, 100 for a check inside k6) can end inside a secret, leaving its start, which the
 * whole value no longer matches. So a start of the secret right before the cut's mark is replaced.
 * Only there: a secret that begins with a common word ("warmup-...") must not take that word out
 * of run.json's keys and values elsewhere.
 */
function cutSecrets(text: string, v: string): string {
  if (!text.includes(CUT_MARK)) return text;
  let out = '';
  let from = 0;
  for (let mark = text.indexOf(CUT_MARK); mark !== -1; mark = text.indexOf(CUT_MARK, mark + 1)) {
    // the longest start of v that ends right at the mark
    for (let n = Math.min(v.length - 1, mark - from); n >= CUT_PREFIX_MIN; n--) {
      if (text.startsWith(v.slice(0, n), mark - n)) {
        out += text.slice(from, mark - n) + REDACTED;
        from = mark;
        break;
      }
    }
  }
  return out + text.slice(from);
}

/** A query or fragment parameter whose value is a credential (access_token, api_key, key, X-Amz-Signature, ...); not sort_key or cache-key. */
export const SECRET_PARAM =
  /secret|token|passw(or)?d|pwd|apikey|api[_-]key|credential|authori[sz]ation|bearer|hmac|signature|^(key|sig|auth|pass)$|(access|private|client|app)[_.-]?key$/i;
/** scheme://userinfo@ ; the userinfo stops at anything that ends an authority or a JSON/HTML string. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;
/** ?name=value, &name=value, ;name=value, #name=value; the value stops where a URL or a JSON/HTML string would. */
const URL_PARAM = /([?&;#]([\w.%[\]-]+)=)([^&;#\s"'<>\\]+)/g;

/** Strips URL userinfo and redacts secret-looking URL parameters anywhere in a text. */
export function scrubUrlSecrets(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  return text
    .replace(URL_USERINFO, '$1')
    .replace(URL_PARAM, (all, head: string, name: string, value: string) =>
      value !== REDACTED && SECRET_PARAM.test(safeDecode(name)) ? `${head}${REDACTED}` : all,
    );
}

/** What in a URL would carry a secret in clear: its userinfo, and secret-looking parameter names. */
export function urlSecrets(url: URL): { userinfo: boolean; params: string[] } {
  const params = new Set<string>();
  for (const name of url.searchParams.keys()) if (SECRET_PARAM.test(name)) params.add(name);
  for (const name of new URLSearchParams(url.hash.slice(1)).keys()) if (SECRET_PARAM.test(name)) params.add(name);
  return { userinfo: url.username !== '' || url.password !== '', params: [...params] };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
