import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles src/ to lib/ when stale: spawned commands run lib/cli.js (see test/helpers/cli.ts).
    globalSetup: ['test/helpers/compile-cli.ts'],
    // Hang guards, not performance checks: the S3 tests take ~8 s on a quiet machine and
    // 4x that on a loaded one; a slow pass must not turn into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on every machine: more workers only add contention.
    maxWorkers: 2,
  },
});
