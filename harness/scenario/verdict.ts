/**
 * What a check's return value means, on both engines (the k6 runtime bundles this file): true or
 * nothing accepts; a string rejects with that message; false rejects. Anything else (a status
 * code returned for a comparison, a truthy object) rejects with what it was and the fix, rather
 * than passing as truthy or reading "returned false" of a 200. Pure.
 */
export function checkReturned(v: unknown): string | null {
  if (v === true || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v === false) return 'check returned false';
  const what = v === null ? 'null' : typeof v === 'object' ? 'an object' : `${String(v)} (a ${typeof v})`;
  return `check returned ${what}: return true, false or a message (e.g. res.status === 200 || \`got \${res.status}\`)`;
}

/**
 * Why a check or a transaction cannot read what its request did not keep, on both engines: plateau
 * keeps a response's body and headers only where the check's (or the transaction's run's) own code
 * names them. `spelled`: how the code would read it (res.body or res.json(), made.headers).
 */
export function notKept(what: string, spelled: string, where: 'check' | 'transaction' = 'check'): string {
  return `the response ${what} ${what === 'headers' ? 'were' : 'was'} not kept for this ${where}: plateau keeps it only when the ${where === 'check' ? "check's" : "transaction's run"} own code reads ${spelled} (not through a helper or a computed name); write ${spelled} in the ${where === 'check' ? 'check' : 'run (or its inline checks)'}`;
}
