import { valueKind } from './value-kind.ts';

/**
 * A request's headers as sent, on both engines (the k6 runtime bundles this file: no Node API):
 * a copy, each value a string. A finite number is sent as its digits, as k6 itself takes one;
 * anything else throws one message naming the header, what its value was (never the value: it may
 * be a secret) and the fix, as a body that is an object does (body-kind.ts). The native engine had
 * sent `undefined` (an unset ctx.env variable) as the text "undefined". No headers (undefined or
 * null) is none. Checked on every request: the spread that copies them was made anyway, and the
 * loop over the copy reads each value once (bench: within the noise of the spread alone).
 */
export function sentHeaders(headers: unknown, what: string): Record<string, string> {
  if (headers === undefined || headers === null) return {};
  if (typeof headers !== 'object' || Array.isArray(headers))
    throw new Error(
      `${what} ${verbOf(what)} headers that are ${valueKind(headers)}: give an object of name and value, headers: { 'x-api-key': ctx.env.API_KEY }`,
    );
  const out: Record<string, unknown> = { ...headers };
  for (const name in out) {
    const v = out[name];
    if (typeof v !== 'string') out[name] = headerText(name, v, what);
  }
  return out as Record<string, string>;
}

/** what is 'request(ctx)' (it returned the spec) or 'http.send(...)' (it was given one), as body-kind.ts words it. */
function verbOf(what: string): string {
  return what.startsWith('http.send') ? 'was given' : 'returned';
}

/** A header value that is not a string: a finite number's digits, else the refusal. */
function headerText(name: string, v: unknown, what: string): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  const kind = typeof v === 'number' ? String(v) : valueKind(v);
  const hint =
    v === undefined
      ? '; is it a field its object (a JSON row) does not have?'
      : typeof v === 'number'
        ? ' (is it Number(...) of a setting not set?)'
        : v !== null && typeof v === 'object'
          ? ' (JSON.stringify(...) for a value that is JSON)'
          : '';
  return refuse(
    `${what} ${verbOf(what)} header ${JSON.stringify(name)} that is ${kind}: give it a string (a finite number is sent as its digits)${hint}`,
  );
}

function refuse(message: string): never {
  throw new Error(message);
}
