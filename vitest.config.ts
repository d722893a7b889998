import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['analysis/**/*.test.ts', 'reports/**/*.test.ts', 'harness/**/*.test.ts', 'demo/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Integration tests put real load on a 2-core machine: one file at a time keeps them honest.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
