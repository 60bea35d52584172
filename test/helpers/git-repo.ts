// Repositories the scan tests make with real git, every date fixed, so that expected values can
// be computed by hand or by plain git commands.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Person {
  name: string;
  email: string;
}

export const ALICE: Person = { name: 'Alice', email: 'alice@example.org' };

/** git with a clean, fixed environment (no user config, no system config). */
export function git(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    input,
    env: {
      PATH: process.env.PATH!,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      LC_ALL: 'C',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

const date = (unix: number) => `@${unix} +0000`;

export interface CommitOptions {
  /** Files to write (string), remove (null), or link (`{ symlink: target }`). */
  files?: Record<string, string | null | { symlink: string }>;
  author?: Person;
  /** Author and committer time unless `committed` is given. */
  at: number;
  committed?: number;
  message?: string;
}

export class WorkRepo {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  static init(dir: string, branch = 'main'): WorkRepo {
    mkdirSync(dir, { recursive: true });
    git(dir, ['init', '-q', '-b', branch]);
    return new WorkRepo(dir);
  }

  git(args: string[], env: Record<string, string> = {}, input?: string): string {
    return git(this.dir, args, env, input);
  }

  /** The commit's oid. */
  commit(o: CommitOptions): string {
    for (const [path, content] of Object.entries(o.files ?? { [`f${o.at}`]: String(o.at) })) {
      const full = join(this.dir, path);
      rmSync(full, { recursive: true, force: true });
      if (content === null) continue;
      mkdirSync(dirname(full), { recursive: true });
      if (typeof content === 'string') writeFileSync(full, content);
      else symlinkSync(content.symlink, full);
    }
    this.git(['add', '-A']);
    const who = o.author ?? ALICE;
    const env = {
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
      GIT_AUTHOR_DATE: date(o.at),
      GIT_COMMITTER_DATE: date(o.committed ?? o.at),
    };
    this.git(['commit', '-q', '--allow-empty', '-m', o.message ?? `at ${o.at}`], env);
    return this.git(['rev-parse', 'HEAD']).trim();
  }

  /** A merge of `branch` into the current branch (a merge commit even when it could fast-forward). */
  merge(branch: string, at: number): string {
    const env = {
      GIT_AUTHOR_NAME: ALICE.name,
      GIT_AUTHOR_EMAIL: ALICE.email,
      GIT_COMMITTER_NAME: ALICE.name,
      GIT_COMMITTER_EMAIL: ALICE.email,
      GIT_AUTHOR_DATE: date(at),
      GIT_COMMITTER_DATE: date(at),
    };
    this.git(['merge', '-q', '--no-ff', '--no-edit', branch], env);
    return this.git(['rev-parse', 'HEAD']).trim();
  }

  tag(name: string, opts: { annotatedAt?: number; target?: string } = {}): void {
    const target = opts.target ?? 'HEAD';
    if (opts.annotatedAt === undefined) this.git(['tag', name, target]);
    else
      this.git(['tag', '-a', '-m', name, name, target], {
        GIT_COMMITTER_NAME: ALICE.name,
        GIT_COMMITTER_EMAIL: ALICE.email,
        GIT_COMMITTER_DATE: date(opts.annotatedAt),
      });
  }

  /** An annotated tag object with no tagger line (old git wrote such tags). */
  taggerlessTag(name: string, target: string): void {
    const body = `object ${target}\ntype commit\ntag ${name}\n\nno tagger\n`;
    const oid = this.git(
      ['hash-object', '-t', 'tag', '-w', '--literally', '--stdin'],
      {},
      body,
    ).trim();
    this.git(['update-ref', `refs/tags/${name}`, oid]);
  }

  /** A bare clone of this repository (what a scan reads), at `dir`. */
  bareClone(dir: string): string {
    git(dirname(dir), ['clone', '-q', '--bare', this.dir, dir]);
    return dir;
  }

  files(): string[] {
    return readdirSync(this.dir).filter((f) => f !== '.git');
  }
}

/** Unix seconds of a UTC date. */
export const utc = (y: number, m: number, d = 1, h = 0): number => Date.UTC(y, m - 1, d, h) / 1000;
