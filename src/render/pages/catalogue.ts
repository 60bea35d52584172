// What the browse pages (the full list, group pages, lists by badge and status, search) know
// of every repository, held compactly so it scales to 100,000: the URLs (the summaries' own
// array), their natural order, and one byte per repository and badge for its latest status.
// Filled during the site-wide pass over the summary lines; no summary object is kept.
import { API_PREFIX } from '../../model/layout.ts';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { esc, flat, href, text } from './html.ts';
import { naturalOrder } from './natural.ts';

/** No status recorded for a badge (a summary that lacks it). */
const NONE = 255;

export class Catalogue {
  /** Badge ids, in the thresholds' order. */
  readonly badges: readonly string[];
  /** Status words in display order (the configured ones first, then any others as met). */
  readonly statuses: string[];
  private readonly statusIndex = new Map<string, number>();
  /** Repository indexes (into urls) in natural order of their URLs. */
  readonly order: readonly number[];
  private readonly matrix: Uint8Array;

  readonly urls: readonly string[];

  constructor(urls: readonly string[], badges: readonly string[], statuses: readonly string[]) {
    this.urls = urls;
    this.badges = badges;
    this.statuses = [];
    for (const s of statuses) this.statusOf(s);
    this.order = naturalOrder(urls, (u) => u);
    this.matrix = new Uint8Array(urls.length * badges.length).fill(NONE);
  }

  private statusOf(s: string): number {
    let i = this.statusIndex.get(s);
    if (i === undefined) {
      i = this.statuses.length;
      // A byte per status: more than 254 distinct words would be a corrupt store; they share the last.
      if (i >= NONE - 1) return NONE - 1;
      this.statuses.push(s);
      this.statusIndex.set(s, i);
    }
    return i;
  }

  /** Records repository `i`'s latest statuses. */
  record(i: number, statusById: Readonly<Record<string, string>>): void {
    const b = this.badges.length;
    for (let j = 0; j < b; j++) {
      const s = statusById[this.badges[j]!];
      if (s !== undefined) this.matrix[i * b + j] = this.statusOf(s);
    }
  }

  /** Status index of repository i for badge j, or -1. */
  status(i: number, j: number): number {
    const v = this.matrix[i * this.badges.length + j]!;
    return v === NONE ? -1 : v;
  }

  /** The word shown for repository i's badge j ('' without one). */
  shown(ctx: PagesContext, i: number, j: number): string {
    const s = this.status(i, j);
    return s < 0 ? '' : shownStatus(ctx.settings.shape, this.statuses[s]!);
  }

  /** Counts per badge and status of the repositories `members` lists (indexes into urls). */
  rollUp(members: Iterable<number>): number[][] {
    const counts = this.badges.map(() => this.statuses.map(() => 0));
    for (const i of members)
      for (let j = 0; j < this.badges.length; j++) {
        const s = this.status(i, j);
        if (s >= 0) counts[j]![s]!++;
      }
    return counts;
  }

  /**
   * What follows a badge image's address, per badge and status (`.svg" alt="…" loading="lazy">`,
   * '' for no word): a repository is listed on several pages, each image the same few words.
   */
  private readonly imgTails = new Map<number, string>();
  private imgTailsOf: PagesContext | undefined;

  private imgTail(ctx: PagesContext, j: number, s: number): string {
    if (this.imgTailsOf !== ctx) {
      this.imgTails.clear();
      this.imgTailsOf = ctx;
    }
    const key = s * this.badges.length + j;
    let tail = this.imgTails.get(key);
    if (tail === undefined) {
      const badge = this.badges[j]!;
      const shown = shownStatus(ctx.settings.shape, this.statuses[s]!);
      // No word, no image ('' as a status could only come from a hand-made summary).
      tail = shown ? `${badge}.svg" alt="${esc(`${badge}: ${shown}`)}" loading="lazy">` : '';
      this.imgTails.set(key, tail);
    }
    return tail;
  }

  /** One repository as a list item: its page, and its badges as images that say their status. */
  item(ctx: PagesContext, i: number): string {
    const url = this.urls[i]!;
    const enc = encodeURIComponent(url);
    const api = href(ctx.env, `${API_PREFIX}${enc}/badges/`);
    let imgs = '';
    for (let j = 0; j < this.badges.length; j++) {
      const s = this.status(i, j);
      const tail = s < 0 ? '' : this.imgTail(ctx, j, s);
      if (tail) imgs += `<img class="badge-img" src="${api}${tail}`;
    }
    return `<li><a href="${href(ctx.env, pagePaths.repository(enc))}">${text(url)}</a> <span class="badges">${imgs}</span></li>`;
  }

  list(ctx: PagesContext, members: readonly number[]): string {
    if (members.length === 0) return '<p>No repository has been scanned yet.</p>';
    let items = '';
    for (const i of members) items += this.item(ctx, i);
    return `<ul class="repo-list">${items}</ul>`;
  }
}

/**
 * A list this many pages long or shorter numbers every page in its pager, so each page of it is
 * one click from any other (a repository on page 30 of a host is not 30 Nexts away).
 */
export const PAGES_ALL_NUMBERED = 50;

/**
 * The page numbers a pager links: all of them up to PAGES_ALL_NUMBERED; beyond, the first and
 * last and, for each power of ten, its nine multiples in the block the page is in (page 537 of
 * 1,000: 100…900, 510…590, 531…539), so any page is a few clicks from any other.
 */
export function pagerNumbers(page: number, pages: number): number[] {
  if (pages <= PAGES_ALL_NUMBERED) return Array.from({ length: pages }, (_, i) => i + 1);
  const shown = new Set([1, page, pages]);
  for (let step = 1; step < pages; step *= 10) {
    const block = Math.floor((page - 1) / (step * 10)) * step * 10;
    for (let k = 1; k <= 9; k++) shown.add(block + k * step);
  }
  return [...shown].filter((n) => n >= 1 && n <= pages).sort((a, b) => a - b);
}

/** Page `page` (from 1) of `pages`: "Page n of m", Previous and Next, and numbered pages (the current one not a link, a gap as "…"). */
export function pager(
  ctx: PagesContext,
  label: string,
  page: number,
  pages: number,
  path: (n: number) => string,
): string {
  if (pages <= 1) return '';
  const a = (n: number, word: string) => `<a href="${href(ctx.env, path(n))}">${word}</a>`;
  let numbers = '';
  let last = 0;
  for (const n of pagerNumbers(page, pages)) {
    if (n > last + 1) numbers += '<li aria-hidden="true">&hellip;</li>';
    numbers +=
      n === page ? `<li><span aria-current="page">${n}</span></li>` : `<li>${a(n, String(n))}</li>`;
    last = n;
  }
  return (
    `<nav class="pager" aria-label="${flat(label)}"><span>Page ${page} of ${pages}</span>` +
    (page > 1 ? a(page - 1, 'Previous') : '') +
    `<ol>${numbers}</ol>` +
    (page < pages ? a(page + 1, 'Next') : '') +
    '</nav>'
  );
}

export function pageCount(n: number, size: number): number {
  return Math.max(1, Math.ceil(n / size));
}
