// What a build would change, without writing: compares the files a build renders with what
// a sink already holds, and the badge statuses they carry. The sink answers "same or not"
// from what it already knows (S3: the listed ETags), so only changed explanation files, whose
// old status the report needs, are ever fetched.
import type { FileScope, OutputFile, PublishFile } from '../model/publish-file.ts';
import type { Sink } from './sink.ts';
import { repositoryPagesPrefix, repositoryPrefix } from '../model/layout.ts';
import { counted } from '../model/plural.ts';

/** A repository rebuilt for some config parts only (the build state's PartialRebuild). */
interface PartialFiles {
  /** How many files of the unchanged parts were left as they are. */
  readonly filter: { readonly skipped: number };
  /** A key of an unchanged part: current although not rendered. */
  unrendered(key: string): boolean;
}

/** Which explanation files a transition was seen in: the latest, a scan's, or a scan's expired variant. */
export type TransitionScope = Exclude<FileScope, 'index'>;

interface Transition {
  badgeId: string;
  scope: TransitionScope;
  from: string;
  to: string;
  repositories: number;
  /** Scans whose per-time file flips (per-scan scopes only). */
  scans?: number;
  examples: string[];
}

/**
 * API answers a reader may hold in a cache that the build would change or remove: all carry
 * `maxAge` (cache.latestMaxAge), so every cache that follows HTTP's rules serves the new bytes
 * within it (plus one stale-while-revalidate refetch); nothing needs invalidating.
 */
interface CachedUrls {
  /** Latest files and indexes: `…/sarif`, `…/badges/<ID>.svg`, `…/badges/<ID>`, … */
  latest: number;
  /** Files under `at/<ts>/`: also what every `?timestamp=` redirecting there answers. */
  perTime: number;
  maxAge: number;
}

export interface PlanReport {
  repositories: number;
  scans: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** A few of the keys `build --prune` would delete. */
  removedExamples: string[];
  transitions: Transition[];
  cachedUrls: CachedUrls;
  /**
   * The build would send the unchanged files again too, for their Cache-Control: the output
   * keeps each file's headers (S3) and the build state records other cache ages or header
   * rules than this build's, or there is no state (or --force).
   */
  resendsUnchanged: boolean;
}

const EXAMPLES = 3;
const PER_TIME_KEY = /\/at\/\d+\//;
const SCOPE_ORDER: TransitionScope[] = ['latest', 'scan', 'expired-scan'];
const SCOPE_LABEL: Record<TransitionScope, string> = {
  latest: 'latest',
  scan: 'per scan',
  'expired-scan': 'expired variant per scan',
};

export class Planner {
  private readonly report: Omit<PlanReport, 'cachedUrls' | 'resendsUnchanged'> = {
    repositories: 0,
    scans: 0,
    added: 0,
    changed: 0,
    removed: 0,
    unchanged: 0,
    removedExamples: [],
    transitions: [],
  };
  private readonly byKey = new Map<string, Transition & { repoSet: Set<string>; count: number }>();
  private readonly cachedUrls: CachedUrls;
  private resends = false;

  private readonly sink: Sink;
  /** `latestMaxAge`: the age every API answer is published with (cache.latestMaxAge). */
  constructor(sink: Sink, latestMaxAge: number) {
    this.sink = sink;
    this.cachedUrls = { latest: 0, perTime: 0, maxAge: latestMaxAge };
  }

  /**
   * Compare one repository's rendered files (what render made of its evaluation) and its pages
   * with the published ones. With `partial`, the files of the config parts it left unrendered
   * count as unchanged.
   */
  async add(
    encoded: string,
    scans: number,
    files: OutputFile[],
    partial?: PartialFiles,
    pages: readonly PublishFile[] = [],
  ): Promise<void> {
    this.report.repositories++;
    this.report.scans += scans;
    this.report.unchanged += partial?.filter.skipped ?? 0;
    await this.addFiles(pages);
    const comparisons = await Promise.all(files.map((f) => this.sink.compare(f)));
    const reads: Array<Promise<void>> = [];
    files.forEach((f, i) => {
      const c = comparisons[i];
      if (c === 'absent') return void this.report.added++;
      if (c === 'same') return void this.report.unchanged++;
      this.report.changed++;
      const { resource, scope } = f;
      this.cachedUrls[scope === 'scan' || scope === 'expired-scan' ? 'perTime' : 'latest']++;
      if (resource.kind !== 'explanation' || scope === 'index') return;
      reads.push(
        this.sink.read(f.key).then((old) => {
          const from = old ? statusOf(Buffer.from(old).toString('utf8')) : '(absent)';
          this.transition(resource.badgeId, scope, from, statusOf(f.body), f.repositoryUrl);
        }),
      );
    });
    await Promise.all(reads);
    // As build --prune: keys under its API prefix and its pages' prefix it no longer produces.
    const produced = new Set([...files, ...pages].map((f) => f.key));
    for (const prefix of [repositoryPrefix(encoded), repositoryPagesPrefix(encoded)]) {
      const removed = (await this.sink.list(prefix)).filter(
        (key) => !produced.has(key) && !partial?.unrendered(key),
      );
      this.addRemoved(removed);
      // A removed API file answers 404 (or its ?timestamp= another time) once caches let go of it.
      if (prefix === repositoryPrefix(encoded))
        for (const key of removed) this.cachedUrls[PER_TIME_KEY.test(key) ? 'perTime' : 'latest']++;
    }
  }

  /** Files of no repository (site-wide pages, summaries, openapi.json): counted, compared in batches. */
  async addFiles(files: Iterable<PublishFile>): Promise<void> {
    let batch: PublishFile[] = [];
    const compare = async () => {
      for (const c of await Promise.all(batch.map((f) => this.sink.compare(f))))
        this.report[c === 'absent' ? 'added' : c === 'same' ? 'unchanged' : 'changed']++;
      batch = [];
    };
    for (const f of files) {
      batch.push(f);
      if (batch.length === 64) await compare();
    }
    await compare();
  }

  /** Keys `build --prune` removes (of a repository that left the store, stale site-wide files). */
  addRemoved(keys: readonly string[]): void {
    for (const key of keys) {
      this.report.removed++;
      if (this.report.removedExamples.length < EXAMPLES) this.report.removedExamples.push(key);
    }
  }

  /** The build would send unchanged files again, for their headers (see PlanReport). */
  resendUnchanged(): void {
    this.resends = true;
  }

  /** Repositories the build state shows unchanged: their files all stay as they are. */
  addUnchanged(repositories: number, scans: number, files: number): void {
    this.report.repositories += repositories;
    this.report.scans += scans;
    this.report.unchanged += files;
  }

  private transition(
    badgeId: string,
    scope: TransitionScope,
    from: string,
    to: string,
    repositoryUrl: string,
  ): void {
    if (from === to) return;
    const id = `${badgeId}\u0000${scope}\u0000${from}\u0000${to}`;
    let t = this.byKey.get(id);
    if (!t)
      this.byKey.set(
        id,
        (t = {
          badgeId,
          scope,
          from,
          to,
          repositories: 0,
          examples: [],
          repoSet: new Set(),
          count: 0,
        }),
      );
    t.count++;
    if (!t.repoSet.has(repositoryUrl)) {
      t.repoSet.add(repositoryUrl);
      t.repositories++;
      if (t.examples.length < EXAMPLES) t.examples.push(repositoryUrl);
    }
  }

  result(): PlanReport {
    const transitions = [...this.byKey.values()]
      .sort(
        (a, b) =>
          a.badgeId.localeCompare(b.badgeId) ||
          SCOPE_ORDER.indexOf(a.scope) - SCOPE_ORDER.indexOf(b.scope) ||
          b.count - a.count ||
          a.from.localeCompare(b.from) ||
          a.to.localeCompare(b.to),
      )
      .map(({ repoSet: _, count, ...t }): Transition => {
        const { examples, ...head } = t;
        // Key order as documented: counts before examples.
        return t.scope === 'latest' ? { ...head, examples } : { ...head, scans: count, examples };
      });
    return {
      ...this.report,
      removedExamples: [...this.report.removedExamples].sort(),
      transitions,
      cachedUrls: { ...this.cachedUrls },
      resendsUnchanged: this.resends,
    };
  }
}

function statusOf(explanationJson: string): string {
  try {
    const s = (JSON.parse(explanationJson) as { badgeStatus?: unknown }).badgeStatus;
    return typeof s === 'string' ? s : '(unknown)';
  } catch {
    return '(unreadable)';
  }
}

export function formatPlan(p: PlanReport): string {
  const lines = [
    `badgepress plan: ${counted(p.repositories, 'repository', 'repositories')}, ${counted(p.scans, 'scan', 'scans')}`,
  ];
  let badge = '';
  for (const t of p.transitions) {
    if (t.badgeId !== badge) lines.push(`${(badge = t.badgeId)}`);
    const scans = t.scans !== undefined ? `, ${counted(t.scans, 'scan', 'scans')}` : '';
    lines.push(
      `  ${t.from} → ${t.to}: ${counted(t.repositories, 'repository', 'repositories')}${scans} (${SCOPE_LABEL[t.scope]}; e.g. ${t.examples.join(', ')})`,
    );
  }
  if (p.transitions.length === 0) lines.push('no badge changes status');
  lines.push(
    `files: ${p.added} to add, ${p.changed} to change, ${p.removed} to remove (with --prune), ${p.unchanged} unchanged`,
  );
  if (p.removedExamples.length > 0)
    lines.push(`--prune would remove e.g. ${p.removedExamples.join(', ')}`);
  const cached = cachedUrlsLine(p.cachedUrls);
  if (cached) lines.push(cached);
  if (p.resendsUnchanged) lines.push(resendLine(p));
  return lines.join('\n');
}

/** Which cached API answers change, and when a reader behind a cache sees them; '' for none. */
export function cachedUrlsLine(c: CachedUrls): string {
  if (c.latest + c.perTime === 0) return '';
  const urls = `${counted(c.latest, 'latest URL', 'latest URLs')} and ${counted(c.perTime, 'per-time URL', 'per-time URLs')} (with the ?timestamp= requests that redirect there)`;
  return `cached answers: ${urls} change; caches serve the new ones within ${c.maxAge} s (cache.latestMaxAge), nothing to invalidate`;
}

/** What a build that sends unchanged files again for their headers costs. */
export function resendLine(p: Pick<PlanReport, 'unchanged'>): string {
  return `headers: the ${counted(p.unchanged, 'unchanged file is', 'unchanged files are')} sent again too, once, for their Cache-Control (the build state records other cache ages or header rules, or none)`;
}
