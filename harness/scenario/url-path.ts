/**
 * The path+query of a scenario's URL without parsing it, when that is safe. A scenario builds a URL
 * for every request; WHATWG parsing (new URL) costs about as much as the rest of building the
 * request. When the URL is the target's origin followed by characters the parser leaves as they are
 * (no dot segments, nothing it would percent-encode or strip), the answer is the rest of the string.
 * Anything else returns null and the caller parses. test: url-path.test.ts checks it against new URL.
 */

/** Characters new URL() keeps verbatim in an http(s) path and query ("'" is encoded in a query). */
const VERBATIM = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;

export function verbatimPath(url: string, origin: string): string | null {
  // the target's origin, or a path relative to it ("/x", never "//host/x": another origin)
  const rest = url.startsWith(origin)
    ? url.slice(origin.length)
    : url.charCodeAt(0) === 47 && url.charCodeAt(1) !== 47
      ? url
      : null;
  if (rest === null) return null;
  if (!VERBATIM.test(rest)) return null;
  // Dot segments are resolved ("/a/../b"), also when spelled %2e; a '.' after '/' may start one.
  if (rest.includes('/.') || rest.includes('%2e') || rest.includes('%2E')) return null;
  // An empty query ("/x?") is dropped by the parser.
  if (rest.endsWith('?')) return null;
  return rest;
}
