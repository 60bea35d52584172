// vitest's order for a run without a cache of earlier durations (every CI run: a fresh clone)
// is larger files first, which sends some long files (a small test driving Chromium, a
// sink's thousands of directories) to the end of the queue: the last one then runs on one
// worker while the other has nothing left. These files start first in their project, longest
// first; the rest keep vitest's order. A name missing here only costs the order, never a test.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take longest on CI's machine, longest first (each project's in its order). */
const LONGEST = [
  'test/s3-publish.test.ts',
  'test/incremental-equivalence.test.ts',
  'test/incremental-property.test.ts',
  'test/incremental-s3.test.ts',
  'test/docs-recipes-kubernetes.test.ts',
  'test/docs-recipes-actions.test.ts',
  'test/docs-recipes-local.test.ts',
  'test/docs-s3-guide.test.ts',
  'test/docs-recipes.test.ts',
  'test/site-browser.test.ts',
  'test/site-browse-browser.test.ts',
  'test/site-read-browser.test.ts',
  'test/pack-install.test.ts',
  'test/prune-gone.test.ts',
  'test/lease.test.ts',
  'test/incremental-repair.test.ts',
  'test/lease-race.test.ts',
  'test/site-crawl.test.ts',
  'test/docs-worker.test.ts',
  'test/plan-s3.test.ts',
  'test/plan.test.ts',
  'test/forge-github.test.ts',
  'test/input-hardening.test.ts',
  'test/dir-sink.test.ts',
  'test/serve-connections.test.ts',
  'test/demo.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(f.project.config.root, f.moduleId).split('\\').join('/'));
      return i < 0 ? LONGEST.length : i;
    };
    // Projects stay in vitest's order (the isolated files first); within one, a stable sort.
    const byProject = new Map<string, TestSpecification[]>();
    for (const f of await super.sort(files))
      byProject.set(f.project.name, [...(byProject.get(f.project.name) ?? []), f]);
    return [...byProject.values()].flatMap((specs) => specs.sort((a, b) => rank(a) - rank(b)));
  }
}
