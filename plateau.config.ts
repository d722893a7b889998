/**
 * The default configuration `make loadtest` uses, and `plateau run --demo` from a directory without
 * a plateau.config.ts of its own. With --demo (the default of `make loadtest`), the target URL and
 * the scenario are those of the embedded demo target.
 */
import { defineConfig } from 'plateau';

export default defineConfig({
  target: { url: 'http://127.0.0.1:8080/', healthPath: '/health' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 1000, rampS: 2, holdS: 10 },
  http: { timeoutMs: 10_000 },
  rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 },
  warmup: { enabled: true, windowS: 2, stableWindows: 3, tolerance: 0.15, maxS: 20 },
});
