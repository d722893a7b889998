// Worker threads start here: the worker's own module, bundled or through tsx (bin/bundle-cache.mjs).
import { startEntry } from '../../bin/bundle-cache.mjs';

await startEntry('harness/engine/worker-main.ts');
