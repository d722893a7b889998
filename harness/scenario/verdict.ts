/**
 * What a check's return value means, on both engines (the k6 runtime bundles this file): true
 * accepts; a string rejects with that message; false rejects. Nothing (undefined) rejects with the
 * fix, as a falsy value does on k6: a check written with braces and no return had accepted every
 * response. Anything else (a status code returned for a comparison, a truthy object) rejects with
 * what it was and the fix, rather than passing as truthy or reading "returned false" of a 200. Pure.
 */
export function checkReturned(v: unknown): string | null {
  if (v === true) return null;
  if (typeof v === 'string') return v;
  if (v === false) return 'check returned false';
  if (v === undefined)
    return 'check returned nothing: return true to accept the response, false or a message to reject it (a check written with braces needs its return)';
  if (isThenable(v))
    return 'check returned a Promise: a check runs synchronously on the response; drop async (a transaction run(ctx, http) may await)';
  const what = v === null ? 'null' : typeof v === 'object' ? 'an object' : `${String(v)} (a ${typeof v})`;
  return `check returned ${what}: return true, false or a message (e.g. res.status === 200 || \`got \${res.status}\`)`;
}

/** A Promise, or anything awaitable (an async function's result). */
export function isThenable(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Why res.json() failed on a body cut at http.maxBodyBytes (`limit`): the setting's, not the target's. */
export function bodyCutText(limit: number): string {
  return `the body is not JSON as kept: plateau keeps the first ${limit} bytes of a body (http.maxBodyBytes) and this one was longer; raise http.maxBodyBytes above the body's size`;
}

/** How a check's failure begins when its own code threw: the scenario's bug, not the target's answer. */
export const CHECK_THREW = 'check threw: ';

/** Marks the error res.json() throws for a body that is not JSON: the target's answer, on both engines. */
const NOT_JSON = Symbol.for('plateau.bodyNotJson');

/** The error res.json() throws for a body that does not parse (`shown`: the start of the body, or "empty"). */
export function bodyNotJson(shown: string): Error {
  return Object.assign(new Error(`the body is not JSON (${shown})`), { [NOT_JSON]: true });
}

/**
 * A check's failure when it threw: a body that is not JSON is the target's wrong answer (kind
 * check); anything else its own code's (kind other: a TypeError of the scenario is no failure of
 * the target's, and a stop line must not read it as one).
 */
export function checkThrew(err: unknown, message: string): string {
  return typeof err === 'object' && err !== null && NOT_JSON in err ? message : `${CHECK_THREW}${message}`;
}

/** The kind a check's failure counts as: the target's answer ('check') or the check's own code ('other'). */
export function checkFailureKind(failure: string): 'check' | 'other' {
  return failure.startsWith(CHECK_THREW) ? 'other' : 'check';
}

/**
 * Why a check or a transaction cannot read what its request did not keep, on both engines: plateau
 * keeps a response's body and headers only where the check's (or the transaction's run's) own code
 * names them. `spelled`: how the code would read it (res.body or res.json(), made.headers).
 */
export function notKept(what: string, spelled: string, where: 'check' | 'transaction' = 'check'): string {
  return `the response ${what} ${what === 'headers' ? 'were' : 'was'} not kept for this ${where}: plateau keeps it only when the ${where === 'check' ? "check's" : "transaction's run"} own code reads ${spelled} (not through a helper or a computed name); write ${spelled} in the ${where === 'check' ? 'check' : 'run (or its inline checks)'}`;
}
