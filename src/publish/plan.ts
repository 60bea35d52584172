// What a build would change, without writing: compares the files a build renders with what
// a sink already holds, and the badge statuses they carry.
import type { OutputFile } from '../render/site-files.ts';
import type { Sink } from './sink.ts';
import { repositoryPrefix } from '../model/layout.ts';

export interface Transition {
  badgeId: string;
  from: string;
  to: string;
  repositories: number;
  scans: number;
  examples: string[];
}

export interface PlanReport {
  repositories: number;
  scans: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  transitions: Transition[];
}

const EXAMPLES = 3;
const PER_TIME_EXPLANATION = /\/at\/\d+\/badges\/([^/.]+)$/;

export class Planner {
  private readonly report: PlanReport = { repositories: 0, scans: 0, added: 0, changed: 0, removed: 0, unchanged: 0, transitions: [] };
  private readonly byKey = new Map<string, Transition & { repoSet: Set<string> }>();

  constructor(private readonly sink: Sink) {}

  /** Compare one repository's rendered files with the published ones. */
  async add(repositoryUrl: string, encoded: string, scans: number, files: OutputFile[]): Promise<void> {
    this.report.repositories++;
    this.report.scans += scans;
    const published = await Promise.all(files.map((f) => this.sink.read(f.key)));
    files.forEach((f, i) => {
      const old = published[i];
      if (!old) return void this.report.added++;
      const oldText = Buffer.from(old).toString('utf8');
      if (oldText === f.body) return void this.report.unchanged++;
      this.report.changed++;
      const m = PER_TIME_EXPLANATION.exec(f.key);
      if (m) this.transition(m[1]!, statusOf(oldText), statusOf(f.body), repositoryUrl);
    });
    const produced = new Set(files.map((f) => f.key));
    this.report.removed += (await this.sink.list(repositoryPrefix(encoded))).filter((k) => !produced.has(k)).length;
  }

  private transition(badgeId: string, from: string, to: string, repositoryUrl: string): void {
    if (from === to) return;
    const id = `${badgeId}\u0000${from}\u0000${to}`;
    let t = this.byKey.get(id);
    if (!t) this.byKey.set(id, (t = { badgeId, from, to, repositories: 0, scans: 0, examples: [], repoSet: new Set() }));
    t.scans++;
    if (!t.repoSet.has(repositoryUrl)) {
      t.repoSet.add(repositoryUrl);
      t.repositories++;
      if (t.examples.length < EXAMPLES) t.examples.push(repositoryUrl);
    }
  }

  result(): PlanReport {
    const transitions = [...this.byKey.values()]
      .map(({ repoSet: _, ...t }) => t)
      .sort((a, b) => a.badgeId.localeCompare(b.badgeId) || b.scans - a.scans || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
    return { ...this.report, transitions };
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
  const lines = [`badgepress plan: ${p.repositories} repositories, ${p.scans} scans`];
  let badge = '';
  for (const t of p.transitions) {
    if (t.badgeId !== badge) lines.push(`${(badge = t.badgeId)}`);
    lines.push(`  ${t.from} → ${t.to}: ${t.repositories} repositories, ${t.scans} scans (e.g. ${t.examples.join(', ')})`);
  }
  if (p.transitions.length === 0) lines.push('no badge changes status');
  lines.push(`files: ${p.added} to add, ${p.changed} to change, ${p.removed} to remove (with --prune), ${p.unchanged} unchanged`);
  return lines.join('\n');
}
