#!/usr/bin/env node
// The TypeScript CLI, from a bundle cached by esbuild (tsx when none can be made): bin/bundle-cache.mjs.
import { startEntry } from './bundle-cache.mjs';

await startEntry('harness/cli/main.ts');
