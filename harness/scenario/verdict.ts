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
