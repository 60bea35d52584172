// The seam between the shape-specific renderings and the rest of the render step: a shape
// turns one scan's evaluation into its files, and renderer.ts places those files at keys.
import type { Resource } from '../model/layout.ts';
import type { RepositoryEvaluation } from '../evaluate/repository.ts';
import type { OutputFile } from '../model/publish-file.ts';

export interface RenderedFile {
  resource: Resource;
  body: string;
}

/**
 * Which of a repository's files to render (an incremental build after a config change renders
 * only the files that change can reach); counts the files it turns away, which stay as they are.
 */
export class RenderFilter {
  skipped = 0;
  private readonly wanted: (r: Resource | { kind: 'index' }) => boolean;
  constructor(wanted: (r: Resource | { kind: 'index' }) => boolean) {
    this.wanted = wanted;
  }

  wants(r: Resource | { kind: 'index' }): boolean {
    if (this.wanted(r)) return true;
    this.skipped++;
    return false;
  }
}

/** Collects the files a filter wants, rendering only their bodies. */
export function renderedFiles(filter: RenderFilter | undefined): {
  files: RenderedFile[];
  add: (resource: Resource, body: () => string) => void;
} {
  const files: RenderedFile[] = [];
  return {
    files,
    add: (resource, body) =>
      void ((!filter || filter.wants(resource)) && files.push({ resource, body: body() })),
  };
}

/** One scan's files (report, and per badge its image and explanation) from its evaluation. */
export type ScanFiles<E> = (
  encoded: string,
  evaluation: E,
  filter?: RenderFilter,
) => RenderedFile[];

/** The render step: every file one repository contributes to the site, in publishing order. */
export interface Renderer {
  /** With a filter, only the files it wants (it counts the others). */
  render(evaluation: RepositoryEvaluation, filter?: RenderFilter): OutputFile[];
}

/**
 * The files only the latest answer has (badges in other styles, shields endpoint JSON,
 * code-scanning.sarif), as the site config switches them on, from that answer's evaluation.
 */
export type LatestOnlyFiles<E> = (
  repositoryUrl: string,
  evaluation: E,
  filter?: RenderFilter,
) => RenderedFile[];
