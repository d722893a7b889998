#!/usr/bin/env node
// The demo target, from a bundle cached by esbuild (tsx when none can be made): bin/bundle-cache.mjs.
import { startEntry } from './bundle-cache.mjs';

await startEntry('demo/main.ts');
