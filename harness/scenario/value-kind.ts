/**
 * What a value is, for a message: "null", "undefined", "an array", "an ArrayBuffer", "an object",
 * "a number" ... Shared by the scenario's settings, its request bodies and its data files, on both
 * engines (the k6 bundle includes it: no Node API). Pure.
 */
export function valueKind(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof ArrayBuffer) return 'an ArrayBuffer';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
