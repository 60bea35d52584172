// Measuring one repository from git: its history read once, the trees of the measured
// commits read once each, and the rules computed for every scan time from that.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Measurement } from '../../model/stored-value.ts';
import type { GitFacts, Measured } from '../types.ts';
import { CatFile, catFileCommands, rootChanges, storedObjects } from './cat-file.ts';
import { readHistory } from './history.ts';
import { measureGit, tipsAt, type GitRuleOptions } from './rules.ts';
import { runGit, type GitSettings } from './run.ts';
import { NO_MAILMAP } from './mailmap.ts';
import { readSnapshots, type Snapshot } from './snapshot.ts';

export interface GitMeasurement extends Measured<Measurement | undefined> {
  /** One per time, in the order of the times; undefined before the repository's first commit. */
  measurements: Array<Measurement | undefined>;
  facts: GitFacts;
}

/**
 * `fetchBlobs`: fetches the named blobs into the mirror (our own mirrors with `--fetch always`);
 * without it a .mailmap blob the mirror lacks is read as no mailmap, and the evidence says so.
 * Nothing here fetches lazily: a missing object is looked for without asking the remote.
 */
export async function measureRepository(
  gitDir: string,
  times: readonly number[],
  options: GitRuleOptions,
  settings: GitSettings,
  fetchBlobs?: (oids: readonly string[]) => Promise<void>,
): Promise<GitMeasurement> {
  const history = await readHistory(gitDir, settings);
  const tips = [
    ...new Set(
      tipsAt(history.commits, history.tip, times).filter((t): t is number => t !== undefined),
    ),
  ].map((t) => history.commits.oids[t]!);
  let snapshots = new Map<string, Snapshot>();
  if (tips.length > 0) {
    const call = { gitDir, settings, noLazyFetch: true };
    const cat = new CatFile(call, await catFileCommands(settings));
    // A repository that is no partial clone has every object: nothing to look for.
    const partial = await isPartialClone(gitDir);
    const missingOf = async (roots: readonly string[], blobs: readonly string[]) => {
      let missing = await missingBlobs(gitDir, settings, roots, blobs);
      if (missing.size > 0 && fetchBlobs) {
        await fetchBlobs([...missing]);
        missing = await missingBlobs(gitDir, settings, roots, blobs);
      }
      return missing;
    };
    try {
      snapshots = await readSnapshots(cat, tips, partial ? missingOf : undefined, {
        // In the cat-file process when it takes commands, else one more git process.
        stored: (oids) =>
          cat.commands ? Promise.all(oids.map((oid) => cat.info(oid))) : storedObjects(call, oids),
        changes: (pairs, rootBytes) => rootChanges(call, pairs, rootBytes),
      });
    } catch (err) {
      cat.kill();
      throw err;
    }
    await cat.close();
  }
  const measurements = measureGit(
    history,
    (oid) => snapshots.get(oid) ?? { mailmap: NO_MAILMAP },
    times,
    options,
  );
  return {
    measurements,
    facts: {
      tagNames: new Set(history.tags.map((t) => t.name)),
      ...(history.defaultBranch === undefined ? {} : { defaultBranch: history.defaultBranch }),
    },
  };
}

/** Whether the repository's config names a promisor remote (a blobless mirror), read without git. */
async function isPartialClone(gitDir: string): Promise<boolean> {
  const config = await readFile(join(gitDir, 'config'), 'utf8').catch(() => undefined);
  // Unreadable: assume it may lack objects (the check costs one process, a wrong guess a fetch).
  return config === undefined || /^\s*(partialclone\s*=|promisor\s*=\s*true)/im.test(config);
}

/**
 * Which of `blobs` (the .mailmap of the trees `roots`) the repository lacks: `rev-list
 * --missing=print` names a missing object with a leading "?" and, unlike cat-file, never
 * fetches it; the pathspec keeps the walk to each root's .mailmap.
 */
async function missingBlobs(
  gitDir: string,
  settings: GitSettings,
  roots: readonly string[],
  blobs: readonly string[],
): Promise<Set<string>> {
  const out = await runGit(
    {
      gitDir,
      settings,
      noLazyFetch: true,
      args: ['rev-list', '--objects', '--missing=print', '--no-walk', '--stdin'],
    },
    `${roots.join('\n')}\n--\n.mailmap\n`,
  );
  const wanted = new Set(blobs);
  const missing = new Set<string>();
  for (const line of out.split('\n'))
    if (line.startsWith('?') && wanted.has(line.slice(1).trim())) missing.add(line.slice(1).trim());
  return missing;
}
