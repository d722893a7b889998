/** How checkReturned's failures for a return value that is no verdict begin and end (noVerdictFix reads them back). */
const RETURNED_NOTHING = 'check returned nothing: ';
const RETURNED_PROMISE = 'check returned a Promise: ';
const RETURN_VALUE_FIX = 'return true, false or a message (e.g. res.status === 200 || `got ${res.status}`)';

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
  if (v === false) return `${RETURNED}false`;
  if (v === undefined)
    return `${RETURNED_NOTHING}return true to accept the response, false or a message to reject it (a check written with braces needs its return)`;
  if (isThenable(v))
    return `${RETURNED_PROMISE}a check runs synchronously on the response; drop async (a transaction run(ctx, http) may await)`;
  const what = v === null ? 'null' : typeof v === 'object' ? 'an object' : `${String(v)} (a ${typeof v})`;
  return `${RETURNED}${what}: ${RETURN_VALUE_FIX}`;
}

/** How checkReturned's own verdicts begin (false, nothing, a Promise, anything else): plateau saying what the check returned. */
const RETURNED = 'check returned ';

/**
 * How preflight's refusal says that a check rejected an answer, unmistakably: a string the check
 * returned is its reason, quoted, with the rule, since a k6-style check returning
 * res.json().status ("UP") was read as a pass in "got 200 (check: UP)"; plateau's own verdicts say
 * what the check returned. (A check's message the user chose, "expected an id", may be that
 * string: the sample's one message says the rule anyway.)
 */
export function rejectedBy(verdict: string): string {
  // the note of a body cut at http.maxBodyBytes (cutNote) is plateau's, after what the check said
  const at = verdict.lastIndexOf(CUT_NOTE);
  const said = at >= 0 ? verdict.slice(0, at) : verdict;
  const note = at >= 0 ? verdict.slice(at) : '';
  if (said.startsWith(RETURNED)) return `rejected by its check, which returned ${said.slice(RETURNED.length)}${note}`;
  return `rejected by its check: ${JSON.stringify(said)} (a string rejects, as the reason; return true to accept)${note}`;
}

/**
 * The message a check rejected with of its own (a string it returned), or null: it accepted, or
 * the verdict is plateau's words (it returned false or nothing, threw, or could not read what it
 * needed). An error sample of a 4xx quotes the former (engine/failure-text.ts).
 */
export function ownMessage(verdict: string | null): string | null {
  if (verdict === null || verdict.startsWith(RETURNED) || verdict.startsWith(CHECK_THREW)) return null;
  return verdict.startsWith(CHECK_CANNOT_JUDGE) ? null : verdict;
}

/** How cutNote begins. */
const CUT_NOTE = ' (the check saw the first ';

/**
 * What a check's rejection adds when the body it could read was cut at http.maxBodyBytes, on both
 * engines: res.body had been cut silently, and a check that looks for text past the cut rejects an
 * answer that has it. `seen`: the bytes the check saw; `total`: the body's, or Infinity where it is
 * not known (preflight reads no further than it keeps, and a chunked body says no length).
 */
export function cutNote(seen: number, total: number): string {
  const of = Number.isFinite(total) ? `of ${total} bytes` : 'bytes of a longer body';
  return `${CUT_NOTE}${seen} ${of}: raise http.maxBodyBytes)`;
}

/**
 * The fix of a check's failure that checkReturned gave for a return value that is no verdict
 * (nothing, a Promise, a number or an object), worded for `check` ('the check of "read order"');
 * null for any other failure: a verdict the check gave (false, its own message), whose fix is the
 * check's logic or the request. Preflight shows it on its fix line (pipeline/sample-blame.ts): the
 * verdict stays a string on both engines' hot paths, so the module that words it reads it back by
 * its own prefixes, as CHECK_THREW and CHECK_CANNOT_JUDGE are read.
 */
export function noVerdictFix(failure: string, check: string): string | null {
  if (failure.startsWith(RETURNED_NOTHING))
    return `make ${check} return its verdict, true to accept the response, false or a message to reject it (written with braces, it needs its return)`;
  if (failure.startsWith(RETURNED_PROMISE))
    return `drop async from ${check}: a check runs synchronously on the response (only a transaction's run(ctx, http) may await)`;
  if (failure.startsWith(RETURNED) && failure.endsWith(`: ${RETURN_VALUE_FIX}`))
    return `make ${check} return true, false or a message, not the value it compares (e.g. res.status === 200 || \`got \${res.status}\`)`;
  return null;
}

/** A Promise, or anything awaitable (an async function's result). */
export function isThenable(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Why res.json() failed on a body cut at http.maxBodyBytes (`limit`): the setting's, not the target's. */
export function bodyCutText(limit: number): string {
  return `the body is not JSON as kept: plateau keeps the first ${limit} bytes of a body (http.maxBodyBytes) and this one was longer; raise http.maxBodyBytes above the body's size`;
}

/** How a check's failure begins when its code threw (kind check: it passed preflight's sample, then met an answer it did not expect). */
export const CHECK_THREW = 'check threw: ';

/**
 * How it begins when plateau could not give the check what it read (a body or headers not kept, a
 * body cut at http.maxBodyBytes): the scenario's or its settings' to fix, not the target's answer,
 * so kind other, never read as the target's limit.
 */
export const CHECK_CANNOT_JUDGE = 'check cannot judge: ';

/** Marks the errors a check gets for what plateau did not give it (CHECK_CANNOT_JUDGE). */
const NOT_GIVEN = Symbol.for('plateau.notGiven');

/** The error a check (or a transaction) gets on reading what plateau did not keep for it: `message` says what and the fix. */
export function notGiven(message: string): Error {
  return Object.assign(new Error(message), { [NOT_GIVEN]: true });
}

/** The error res.json() throws for a body that does not parse (`shown`: the start of the body, or "empty"). */
export function bodyNotJson(shown: string): Error {
  return new Error(`the body is not JSON (${shown})`);
}

/**
 * A check's failure when it threw: "check cannot judge: ..." where plateau did not give it what it
 * read; else "check threw: ...": its code met an answer it did not expect (a body that is not JSON,
 * an error body under load that lacks a field), which is the target's, as on k6. A check that throws
 * on every answer fails preflight's sample arrival before load.
 */
export function checkThrew(err: unknown, message: string): string {
  return typeof err === 'object' && err !== null && NOT_GIVEN in err
    ? `${CHECK_CANNOT_JUDGE}${message}`
    : `${CHECK_THREW}${message}`;
}

/** The kind a check's failure counts as: the target's answer ('check'), or what plateau could not give it ('other'). */
export function checkFailureKind(failure: string): 'check' | 'other' {
  return failure.startsWith(CHECK_CANNOT_JUDGE) ? 'other' : 'check';
}

/**
 * Why a check or a transaction cannot read what its request did not keep, on both engines: plateau
 * keeps a response's body and headers only where the check's (or the transaction's run's) own code
 * names them. `spelled`: how the code would read it (res.body or res.json(), made.headers).
 */
export function notKept(what: string, spelled: string, where: 'check' | 'transaction' = 'check'): string {
  return `the response ${what} ${what === 'headers' ? 'were' : 'was'} not kept for this ${where}: plateau keeps it only when the ${where === 'check' ? "check's" : "transaction's run"} own code reads ${spelled} (not through a helper or a computed name); write ${spelled} in the ${where === 'check' ? 'check' : 'run (or its inline checks)'}`;
}
