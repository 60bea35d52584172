// Measuring one repository from git: its history read once, the trees of the measured
// commits read once each, and the rules computed for every scan time from that.
import type { GitFacts, Measurement } from '../types.ts';
import { CatFile } from './cat-file.ts';
import { readHistory } from './history.ts';
import { measureGit, tipsAt, type GitRuleOptions } from './rules.ts';
import type { GitSettings } from './run.ts';
import { NO_MAILMAP } from './mailmap.ts';
import { readSnapshots, type Snapshot } from './snapshot.ts';

export interface GitMeasurement {
  /** One per time, in the order of the times; undefined before the repository's first commit. */
  measurements: Array<Measurement | undefined>;
  facts: GitFacts;
}

export async function measureRepository(gitDir: string, times: readonly number[], options: GitRuleOptions, settings: GitSettings): Promise<GitMeasurement> {
  const history = await readHistory(gitDir, settings);
  const tips = [...new Set(tipsAt(history.commits, history.tip, times).filter((t): t is number => t !== undefined))].map((t) => history.commits.oids[t]!);
  let snapshots = new Map<string, Snapshot>();
  if (tips.length > 0) {
    const cat = new CatFile({ gitDir, settings });
    try {
      snapshots = await readSnapshots(cat, tips);
    } catch (err) {
      cat.kill();
      throw err;
    }
    await cat.close();
  }
  const measurements = measureGit(history, (oid) => snapshots.get(oid) ?? { mailmap: NO_MAILMAP }, times, options);
  return {
    measurements,
    facts: { tagNames: new Set(history.tags.map((t) => t.name)), ...(history.defaultBranch === undefined ? {} : { defaultBranch: history.defaultBranch }) },
  };
}
