/**
 * The backstop that keeps secrets out of every output. Secrets come only from the environment and
 * plateau never writes them on purpose; but a target may echo a token into an error body, and a
 * scenario's check() message may quote a header. Every line the run prints and every text the run
 * store writes passes through this scrubber (a bucket line a second, run.json, probes, k6's own
 * files once a leg ended: never a request), so the value of a secret is replaced wherever it
 * lands, in the forms a target's echo and plateau's own encodings give it (secretMatcher), and
 * base64 or hex of it (secret-encoded.ts).
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
 * fragment parameter (`?access_token=[redacted]`, after a `&`, `&amp;` or Go's `\u0026` too). The
 * config refuses both (config/validate.ts); this is the backstop for a URL that reached the store
 * another way (an old run.json, a target's error message, `plateau import k6 --target`). One
 * userinfo alone is kept: PLACEHOLDER_USERINFO, the example plateau's own fixes write
 * (`postgres://USER:PASSWORD@host/db`), which is no one's credential; stripped, the fix read
 * `postgres://host/db` and no longer said where the password goes.
 */

import { CUT_MARK } from './cut-message.ts';
import { anchorOf, encodedMatchers, scrubEncoded } from './secret-encoded.ts';

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
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * The names of the secret variables whose value `text` holds, as it is or as a URL encodes it. A
 * file that works only with what it was given (a k6 script, a Kubernetes manifest) cannot be
 * scrubbed: one that would hold a secret is refused instead, naming the variables.
 */
export function secretsHeldIn(text: string, declared: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const values = new Set(secretValues(declared, env).filter((v) => text.includes(v) || text.includes(encodeURI(v))));
  const names = [...new Set(declared)].concat(Object.keys(env).filter((n) => SECRET_NAME.test(n)));
  return [...new Set(names.filter((n) => values.has(env[n] ?? '')))].sort();
}

export function secretScrubber(declared: readonly string[], env: NodeJS.ProcessEnv): Scrub {
  const values = secretValues(declared, env);
  const matchers = values.map(secretMatcher);
  const encoded = values.flatMap((v) => encodedMatchers(v, MIN_SECRET_CHARS));
  return (text) => {
    let out = text;
    for (const m of matchers) {
      if (m.anchor === '' || out.includes(m.anchor)) out = out.replace(m.whole, m.replacement);
    }
    if (out.includes(CUT_MARK) || out.includes('"...'))
      for (const m of matchers) out = out.replace(m.cut, m.replacement);
    return scrubUrlSecrets(scrubEncoded(out, encoded, REDACTED));
  };
}

/**
 * One secret's matchers, built once per run. The value is matched in every form it takes on its
 * way back through a target and through plateau's own encodings, character by character, so that
 * forms mixed within one value match too (Python's quote() leaves / alone and encodes +):
 *
 * - letters and digits as they are: no encoding changes them (JSON, percent-encoding, form
 *   encoding, HTML escaping), so a few of them in a row are a cheap test that the text can hold
 *   the value at all (`anchor`), before any regular expression runs;
 * - every other character also: behind any number of backslashes (JSON-escaped once, twice, more:
 *   a target's body quoted in a check message, that message in buckets.ndjson; Markdown's
 *   escapes; PHP's \/); as \uXXXX behind one or more backslashes (Go escapes < > & U+2028
 *   U+2029, others every non-ASCII character; a character outside the BMP as its surrogate pair);
 *   as \n \t \r \b \f for those; percent-encoded, its UTF-8 bytes in either case of hex, once or
 *   twice (%2B, %252B), and a JSON backslash percent-encoded too (%5C); a space as + and a + as a
 *   space (form encoding, and its decoding); as an HTML entity (&amp; &lt; &gt; &quot; &apos;,
 *   &#NN; and &#xHH; for any character), its & itself escaped again (&amp;amp;, \u0026amp;);
 *   a " doubled (CSV), where no backslash escapes it.
 *
 * Replacing may not break the JSON the text is (a buckets.ndjson line, run.json): a match starts
 * at the first of a run of backslashes (or of %5C) before it, never inside an escape (\n before a
 * value that starts with n, the hex of a \u0041, the C of a %5C), and one that ends in an odd run
 * of backslashes takes the escaped character with it. A value's first or last " matched as a bare
 * quote (no odd run of backslashes before it) is a JSON string's own quote where the text is JSON
 * (the value less that quote at a string's start or end, or the value written raw): it is kept
 * beside the [redacted].
 */
interface SecretMatcher {
  anchor: string;
  /** The whole value, in any form. */
  whole: RegExp;
  /**
   * A message cut to length (cutMessage: an error sample at 300 characters in the native engine,
   * 200 for k6's errors, 100 for a check inside k6; Node's JSON.parse errors: NODE_CUT) can end
   * inside a secret, leaving its start, which the whole value no longer matches. So the value's
   * start (3 characters or more, in any form, ending in a form's own start: %2, \u00) right before
   * the cut's mark is replaced. Only
   * there: a secret that begins with a common word ("warmup-...") must not take that word out of
   * run.json's keys and values elsewhere.
   */
  cut: RegExp;
  /** What a match is replaced with: [redacted], with the bare quote a match began or ended in kept. */
  replacement: (all: string, ...args: unknown[]) => string;
}

/**
 * A run of backslashes, or of %5C, or of %255C (JSON escapes percent-encoded once, twice: one
 * encoding writes all of a run alike), taken whole, never given back: JavaScript has no atomic
 * group, a lookahead's capture and its backreference are one. With backtracking into such runs, a
 * value with 4 backslashes against a text of 2,000 took minutes (a hostile target could send
 * that); taken whole, it takes linear time. One kind a run: a value's own %5C after its \ (as
 * `\%5C`, or percent-encoded `%5C%255C`) is not taken as more of the run. Before a % only
 * backslashes (a `\u0025`): no encoder escapes a %, and a value's own %5C must stay its own.
 */
const run = (name: string, atLeastOne = false, backslashesOnly = false) =>
  String.raw`(?=(?<${name}>\\+${backslashesOnly ? '' : String.raw`|(?:%5[cC])+|(?:%255[cC])+`})${atLeastOne ? '' : '?'})\k<${name}>`;
/** Right after a backslash (the run just taken, or the value's own \ before): where a \u or \n escape's letter may be. */
const AFTER_BACKSLASH = String.raw`(?<=\\|%(?:25)?5[cC])`;

/** A cut may leave this little of one character's form before its mark: `\`, `\u00`, `%2`, `%25`, `&am`, `&#x2`. */
const PARTIAL_FORM = `(?:${run('partial')}(?:u[0-9a-fA-F]{0,3}|%(?:25)?[0-9a-fA-F]?|&[#a-zA-Z0-9]*)?)`;

/** Where the C of a %5C or the 2 or a 5 of a %255C is: a match does not start there. */
const INSIDE_PERCENT_BACKSLASH = String.raw`(?:(?<=%)(?=(?:25)?5[cC])|(?<=%2)(?=55[cC])|(?<=%25)(?=5[cC])|(?<=%(?:25)?5)(?=[cC]))`;

function secretMatcher(value: string): SecretMatcher {
  const chars = [...value];
  const forms = chars.map((c, i) => charForms(c, i, chars[i - 1], i === chars.length - 1));
  const anchor = anchorOf(value);
  const start = startGuard(chars[0]);
  const end = chars[chars.length - 1] === '\\' ? ODD_BACKSLASHES_TAKE_NEXT : '';
  const whole = new RegExp(`${start.before}${forms[0]}${start.after}${forms.slice(1).join('')}${end}`, 'g');
  // the longest start of the value that ends at a mark: 3 characters, then each further one optional in turn
  const n = Math.min(forms.length - 1, MAX_CUT_PREFIX);
  let rest = '';
  for (let i = n - 1; i >= CUT_PREFIX_MIN; i--) rest = `(?:${forms[i]}${rest})?`;
  const cut = new RegExp(
    `${start.before}${forms[0]}${start.after}${forms.slice(1, CUT_PREFIX_MIN).join('')}${rest}(?:${PARTIAL_FORM}(?=${CUT_MARK})|(?=${NODE_CUT}))`,
    'g',
  );
  const keepsQuote = chars[0] === '"' || chars[chars.length - 1] === '"';
  const replacement = keepsQuote
    ? (_all: string, ...args: unknown[]) => {
        const groups = args[args.length - 1] as Record<string, string | undefined>;
        return `${groups.qs === undefined ? '' : '"'}${REDACTED}${groups.qe === undefined ? '' : '"'}`;
      }
    : () => REDACTED;
  return { anchor, whole, cut, replacement };
}

/**
 * Node's JSON.parse quotes a text of 21 characters or more that it cannot parse cut short, around
 * where it failed: `"tok-123456"... is not valid JSON`, `..."{"auth": tok-12345"...`. It cuts
 * whole characters of the raw text, so no partial form is before its `"...` (its quote may be
 * escaped: a check's message in a bucket line); a form's own backslash before it is left, and the
 * line stays JSON.
 */
const NODE_CUT = String.raw`\\*"\.\.\.`;

/** A cut message is at most 300 characters: no longer start of a value can be right before its mark. */
const MAX_CUT_PREFIX = 320;

/** An odd run of backslashes at a match's end escapes the next character (or \uXXXX): taken too, so what is left stays valid JSON. */
const ODD_BACKSLASHES_TAKE_NEXT = String.raw`(?:(?<=(?<!\\)(?:\\\\)*\\)(?:u[0-9a-fA-F]{4}|[^]))?`;

/**
 * Where a match may start. A first character with forms of its own starts at a run's first
 * backslash or %5C (its forms take any before it); a letter or digit not after an odd run (it
 * would be the n of \n) nor, a hex digit, inside a \uXXXX escape, nor inside a %5C or %255C.
 * So a match never starts inside a run: a run is read once, however long (at each of its
 * places it would be read again to its end: quadratic time).
 */
function startGuard(first: string): { before: string; after: string } {
  if (!/[A-Za-z0-9]/.test(first)) return { before: String.raw`(?<!\\|%(?:25)?5[cC])`, after: '' };
  const hex = /[0-9a-fA-F]/.test(first) ? String.raw`(?:u[0-9a-fA-F]{0,3})?` : '';
  const before = /[25cC]/.test(first) ? `(?!${INSIDE_PERCENT_BACKSLASH})` : '';
  return { before, after: String.raw`(?<!(?<!\\)(?:\\\\)*\\${hex}${escapeRe(first)})` };
}

/** An HTML entity's & (after a run of backslashes): as it is, JSON's \u0026 (Go), percent-encoded, and escaped again (&amp;amp;). */
const AMP = String.raw`(?:&|${AFTER_BACKSLASH}u0026|%(?:25)?26)(?:amp;)*`;
const NAMED_ENTITY: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const SHORT_ESCAPE: Record<string, string> = { '\n': 'n', '\t': 't', '\r': 'r', '\b': 'b', '\f': 'f' };

/**
 * The pattern of the i-th character (a code point) of a secret, in all its forms. A \ is a run
 * of backslashes (one or more, whatever escaped it), and the \ right after another \ is part of
 * that run: two runs side by side could split one in the text; or a /, as the URL parser writes
 * a \ in a path.
 */
function charForms(c: string, i: number, before: string | undefined, last: boolean): string {
  if (/[A-Za-z0-9]/.test(c)) return c;
  const cp = c.codePointAt(0)!;
  const numeric = `${AMP}#(?:0*${cp}|[xX]0*${hexRe(cp, 1)});`;
  if (c === '\\') {
    if (before === '\\') return '';
    // a / too: the URL parser sends a \ in a path as / (a token in /hooks/<token>, echoed back)
    return `(?:${run(`b${i}`, true)}(?:u005[cC])?|${run(`e${i}`)}${numeric}|\/)`;
  }
  const literal = c === '"' ? quoteForms(i, last) : c === '+' ? '[+ ]' : c === ' ' ? '[ +]' : escapeRe(c);
  const percent = [...Buffer.from(c, 'utf8')].map((b) => `%(?:25)?${hexRe(b, 2)}`).join('');
  const units = c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [cp];
  const unicode = units.map((u, k) => `${k > 0 ? run(`s${i}`, true) : ''}u${hexRe(u, 4)}`).join('');
  const named = c === '&' ? AMP : NAMED_ENTITY[c] ? `${AMP}${NAMED_ENTITY[c]};` : null;
  const escaped = [unicode, ...(SHORT_ESCAPE[c] ? [SHORT_ESCAPE[c]] : [])];
  const forms = [literal, percent, numeric, ...(named ? [named] : []), `${AFTER_BACKSLASH}(?:${escaped.join('|')})`];
  return `${run(`b${i}`, false, c === '%')}(?:${forms.join('|')})`;
}

/**
 * A " as it is: doubled (CSV) only where no backslash is before it (in JSON, `\""` is an escaped
 * quote and the string's end); the value's first one bare (not after a backslash: a match starts
 * at a run's first) and its last one bare (after no odd run of backslashes) captured, to be kept.
 */
function quoteForms(i: number, last: boolean): string {
  const doubled = String.raw`"(?<!\\")"`;
  if (i === 0) return String.raw`(?:${doubled}|(?<qs>(?<!\\)")|")`;
  if (last) return String.raw`(?:${doubled}|(?<qe>(?<!(?<!\\)(?:\\\\)*\\)")|")`;
  return `(?:${doubled}|")`;
}

/** A number in hex, at least `digits` of them, each letter in either case. */
function hexRe(n: number, digits: number): string {
  return [...n.toString(16).padStart(digits, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** A secret's start shorter than this before a cut's mark is left: too little of it to matter, and likely ordinary text. */
const CUT_PREFIX_MIN = 3;

/** A query or fragment parameter whose value is a credential (access_token, api_key, key, X-Amz-Signature, ...); not sort_key or cache-key. */
export const SECRET_PARAM =
  /secret|token|passw(or)?d|pwd|apikey|api[_-]key|credential|authori[sz]ation|bearer|hmac|signature|^(key|sig|auth|pass)$|(access|private|client|app)[_.-]?key$/i;
/** scheme://userinfo@ ; the userinfo stops at anything that ends an authority or a JSON/HTML string. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>\\]+)@/gi;
/**
 * The userinfo of the URLs plateau's fixes give as examples: exactly these capitals, so the
 * scrubber keeps it (a real URL's `user:password@`, in any case, is stripped).
 */
export const PLACEHOLDER_USERINFO = 'USER:PASSWORD';
/**
 * ?name=value, &name=value, ;name=value, #name=value; the value stops where a URL or a JSON/HTML
 * string would. The & may be escaped: &amp; (its ;), Go's JSON \u0026 behind one or more backslashes.
 */
const URL_PARAM = /((?:[?&;#]|(?<!\\)\\+u0026)([\w.%[\]-]+)=)([^&;#\s"'<>\\]+)/g;

/** Strips URL userinfo and redacts secret-looking URL parameters anywhere in a text. */
export function scrubUrlSecrets(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  return text
    .replace(URL_USERINFO, (all, scheme: string, userinfo: string) =>
      userinfo === PLACEHOLDER_USERINFO ? all : scheme,
    )
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
