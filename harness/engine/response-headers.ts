/**
 * A response's headers as a record, made only where a check or a transaction reads them: both
 * clients keep them raw (Outcome.rawHeaders). Apart from the clients, so that reading them loads
 * neither, nor undici's own parser (undici-client.ts loadUndici).
 */
import type { Outcome } from './outcome.ts';

/**
 * The response's headers as a record, as undici's util.parseHeaders makes one (not loaded for it:
 * see undici-client.ts loadUndici): names lower-cased, values as latin1 text, a repeated name's
 * values in an array in order; a name such as __proto__ or constructor is an own key like any other.
 */
export function responseHeaders(o: Outcome): Record<string, string | string[] | undefined> {
  const raw = o.rawHeaders;
  const headers: Record<string, string | string[] | undefined> = {};
  if (!raw) return headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i]).toLowerCase();
    const value = latin1(raw[i + 1]);
    const had = Object.hasOwn(headers, name) ? headers[name] : undefined;
    if (had === undefined)
      Object.defineProperty(headers, name, { value, enumerable: true, configurable: true, writable: true });
    else if (typeof had === 'string') headers[name] = [had, value];
    else had.push(value);
  }
  return headers;
}

const latin1 = (b: Buffer | string): string => (typeof b === 'string' ? b : b.toString('latin1'));
