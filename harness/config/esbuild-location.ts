/** Where an esbuild message points, as plateau's messages name it and as an editor counts it. */
import path from 'node:path';
import type * as esbuild from 'esbuild';

/**
 * "line 3:14" in the file `abs` itself, "<path>:3:14" in a file it imports (`loc.file` is relative
 * to the build's `workingDir`); the column counts characters from 1.
 */
export function where(loc: esbuild.Location, abs: string, workingDir: string): string {
  const file = path.resolve(workingDir, loc.file);
  return `${file === abs ? 'line ' : `${file}:`}${loc.line}:${charColumn(loc) + 1}`;
}

/** The 0-based column in UTF-16 units, as editors and JavaScript count: esbuild's counts UTF-8 bytes. */
export function charColumn(loc: esbuild.Location): number {
  return Buffer.from(loc.lineText, 'utf8').subarray(0, loc.column).toString('utf8').length;
}
