/** Types of bin/bundle-cache.mjs for the TypeScript that imports it. */
export function startEntry(rel: string, root?: string, cache?: string): Promise<unknown>;
export function prepareEntry(rel: string, root?: string, cache?: string): Promise<void>;
export function bundleFor(root: string, rel: string, cache: string): Promise<string>;
export const ownLocation: import('esbuild').Plugin;
