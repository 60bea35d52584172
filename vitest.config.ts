import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Hang guards, not performance checks: the S3 tests take ~8 s on a quiet machine and
    // 4x that on a loaded one; a slow pass must not turn into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on every machine: more workers only add contention.
    maxWorkers: 2,
  },
});
