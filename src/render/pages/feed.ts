// An Atom 1.0 feed per repository (repositories/<enc>/feed.atom) of badge status changes,
// newest first, so a maintainer hears when a badge drops.
import type { RepositoryHistory } from '../../load/types.ts';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { isoTime } from '../../model/calendar.ts';
import { esc } from './html.ts';
import type { StatusChange } from './evaluate.ts';

const MAX_ENTRIES = 50;

export function repositoryFeed(ctx: PagesContext, h: RepositoryHistory, changes: readonly StatusChange[]): string {
  const page = `${ctx.site.baseUrl}/${pagePaths.repository(h.encoded)}`;
  const self = `${ctx.site.baseUrl}/${pagePaths.feed(h.encoded)}`;
  const shape = ctx.site.shape;
  const newest = [...changes].reverse().slice(0, MAX_ENTRIES);
  // The page's address is in every entry: escaped once (escaping works character by character).
  const escPage = esc(page);
  const updated = newest[0]?.t ?? h.scans[h.scans.length - 1]!.timestamp;
  const entries = newest.map((c) => {
    const to = shownStatus(shape, c.to);
    const title = c.from === null ? `${c.badge} is ${to} (first scan)` : `${c.badge} changed from ${shownStatus(shape, c.from)} to ${to}`;
    return (
      `<entry><id>${escPage}#${esc(`${c.badge}-${c.t}`)}</id><title>${esc(title)}</title><updated>${isoTime(c.t)}</updated>` +
      `<link rel="alternate" type="text/html" href="${escPage}"/><summary>${esc(title)} with the scan of ${isoTime(c.t)}.</summary></entry>`
    );
  });
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">` +
    `<id>${escPage}</id><title>${esc(`Badge changes of ${h.repositoryUrl}`)}</title><updated>${isoTime(updated)}</updated>` +
    `<author><name>${esc(ctx.site.tool.name)}</name></author>` +
    `<link rel="self" type="application/atom+xml" href="${esc(self)}"/><link rel="alternate" type="text/html" href="${escPage}"/>` +
    `<generator>${esc(ctx.site.tool.name)}</generator>${entries.join('')}</feed>\n`
  );
}
