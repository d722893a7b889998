import { valueKind } from './value-kind.ts';

/**
 * A request body must be a string (sent as UTF-8) or a Uint8Array (a Buffer): what each engine is
 * given otherwise, in one message naming what it was and the fix. Shared by the native engine
 * (load.ts) and the k6 runtime (bundled: no Node API). Pure.
 */
export function bodyProblem(body: unknown, what: string): string | null {
  if (typeof body === 'string' || body instanceof Uint8Array) return null;
  const kind = valueKind(body);
  // what is 'request(ctx)' (it returned the spec) or 'http.send(name, request)' (it was given one)
  const verb = what.startsWith('http.send') ? 'was given' : 'returned';
  return `${what} ${verb} a body that is ${kind}: give a string (JSON.stringify(...)) or a Uint8Array`;
}
