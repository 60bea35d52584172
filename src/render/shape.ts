// The seam between the shape-specific renderings and the rest of the render step: a shape
// turns one scan's evaluation into its files, and site-files.ts places those files at keys.
import type { Resource } from '../model/layout.ts';
import type { RepositoryEvaluation } from '../evaluate/repository.ts';
import type { OutputFile } from './site-files.ts';

export interface RenderedFile {
  resource: Resource;
  body: string;
}

/** One scan's files (report, and per badge its image and explanation) from its evaluation. */
export type ScanFiles<E> = (encoded: string, evaluation: E) => RenderedFile[];

/** The render step: every file one repository contributes to the site, in publishing order. */
export interface Renderer {
  render(evaluation: RepositoryEvaluation): OutputFile[];
}

/**
 * The files only the latest answer has (badges in other styles, shields endpoint JSON,
 * code-scanning.sarif), as the site config switches them on, from that answer's evaluation.
 */
export type LatestOnlyFiles<E> = (repositoryUrl: string, evaluation: E) => RenderedFile[];
