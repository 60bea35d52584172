// A file of the site as the renderers make it, the publisher orders it and sinks store it.
import type { Resource } from './layout.ts';

/** Publishing order: a phase goes out only once the one before it is complete; 'page': the
 *  human pages, which link the files of the phases before; 'home': the site's front page,
 *  last, so the page a visitor enters by never links a page that is not out yet. */
export type Phase = 'at' | 'index' | 'latest' | 'page' | 'home';

/**
 * Which answer a file holds: a scan's at its own time (`at/<ts>/`), a scan's once expired
 * (`at/<ts>/expired/`, Shape A), the repository's index.json, or the answer for `now`.
 */
export type FileScope = 'scan' | 'expired-scan' | 'index' | 'latest';

/** Any file of the site as sinks store it and the publisher orders it (API files and pages). */
export interface PublishFile {
  key: string;
  body: string;
  contentType: string;
  cacheControl: string;
  phase: Phase;
}

/** An API file of one repository. */
export interface OutputFile extends PublishFile {
  /** What the build knows about the file, so later stages never parse its key back. */
  repositoryUrl: string;
  resource: Resource | { kind: 'index' };
  scope: FileScope;
  /** The scan the file answers with (its timestamp); for latest files the newest scan. Absent on index.json. */
  scanTimestamp?: number;
}
