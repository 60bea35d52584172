// The seam between the shape-specific stages and the rest of the pipeline: a shape knows its
// rules (to validate stored values), its badge ids, and how to render one scan's files.
import type { Resource } from '../model/layout.ts';
import type { RepositoryHistory, RuleCatalog } from '../load/types.ts';

export interface RenderedFile {
  resource: Resource;
  body: string;
}

export interface ShapeSite {
  readonly shape: 'A' | 'B';
  readonly badgeIds: readonly string[];
  readonly catalog: RuleCatalog;
  /**
   * The files of scan `index` of `history`, answering for the moment `asOf` (Unix s): the
   * scan's own time for per-time files, the build's `--now` for the latest files.
   */
  renderScan(history: RepositoryHistory, index: number, asOf: number): RenderedFile[];
  /**
   * The files only the latest result has (badges in other styles, shields endpoint JSON,
   * code-scanning.sarif), as the site config switches them on; same arguments as renderScan.
   */
  renderLatestOnly(history: RepositoryHistory, index: number, asOf: number): RenderedFile[];
  /** Whether the answer for `asOf` can differ from the answer at the scan's own time. */
  dependsOnAsOf(scanTime: number, asOf: number): boolean;
  /** Badge statuses per badge id for one scan (for plan and summaries). */
  statuses(history: RepositoryHistory, index: number, asOf: number): Record<string, string>;
}
