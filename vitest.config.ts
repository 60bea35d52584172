import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longest-first.ts';

/** Files that change process-wide state another file would see (AWS variables and HOME in
 *  process.env, a vi.mock of svgo): each runs in a fresh process of its own. */
const ISOLATED = [
  'test/render-once.test.ts',
  'test/s3-errors.test.ts',
  'test/s3-publish.test.ts',
  'test/incremental-s3.test.ts',
  'test/incremental-equivalence.test.ts',
  'test/incremental-property.test.ts',
  'test/store-consistency.test.ts',
  'test/scan-s3.test.ts',
];

export default defineConfig({
  test: {
    // Compiles src/ to lib/ when stale: spawned commands run lib/cli.js (see test/helpers/cli.ts).
    globalSetup: ['test/helpers/compile-cli.ts'],
    setupFiles: ['test/helpers/buffer-equality.ts'],
    // Hang guards, not performance checks: the S3 tests take ~8 s on a quiet machine and
    // 4x that on a loaded one; a slow pass must not turn into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on every machine, and the suite is CPU-bound (its CPU time is about twice its
    // wall time): more workers only add contention.
    maxWorkers: 2,
    // Long files first, so that the run does not end on one of them with one worker idle.
    sequence: { sequencer: LongestFirst },
    projects: [
      // Every other file shares its worker's module cache with the files run before it there:
      // importing the AWS SDK, svgo and the pipeline once per worker instead of once per file
      // halves the CPU time of the short files.
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
