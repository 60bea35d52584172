// An Atom 1.0 feed per repository (repositories/<enc>/feed.atom) of badge status changes,
// newest first, so a maintainer hears when a badge drops. Opened in a browser it is readable:
// it names the site's stylesheet and the feeds' own (assets/feed.<hash>.css) in
// xml-stylesheet instructions, and its subtitle (XHTML, which a browser draws as HTML) says
// what the file is and links the repository's page. A stylesheet, not XSLT: browsers have
// deprecated XSLT (Chromium marks every transformed page with a banner and a warning).
import type { RepositoryHistory } from '../../load/types.ts';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { isoTime } from '../../model/calendar.ts';
import { esc, href } from './html.ts';
import type { RepositoryEvaluations } from './context.ts';
import { unknownCauses, type StatusChange } from './evaluate.ts';

const MAX_ENTRIES = 50;

export function repositoryFeed(
  ctx: PagesContext,
  h: RepositoryHistory,
  ev: RepositoryEvaluations,
  changes: readonly StatusChange[],
): string {
  const page = `${ctx.settings.baseUrl}/${pagePaths.repository(h.encoded)}`;
  const self = `${ctx.settings.baseUrl}/${pagePaths.feed(h.encoded)}`;
  const shape = ctx.settings.shape;
  const newest = [...changes].reverse().slice(0, MAX_ENTRIES);
  // The page's address is in every entry: escaped once (escaping works character by character).
  const escPage = esc(page);
  const updated = newest[0]?.t ?? h.scans[h.scans.length - 1]!.timestamp;
  let entries = '';
  for (const c of newest) {
    const to = shownStatus(shape, c.to);
    const title =
      c.from === null
        ? `${c.badge} is ${to} (first scan)`
        : `${c.badge} changed from ${shownStatus(shape, c.from)} to ${to}`;
    const at = isoTime(c.t);
    const escTitle = esc(title);
    entries +=
      `<entry><id>${escPage}#${esc(`${c.badge}-${c.t}`)}</id><title>${escTitle}</title><updated>${at}</updated>` +
      `<link rel="alternate" type="text/html" href="${escPage}"/><summary>${escTitle} with the scan of ${at}.${why(ev, c)}</summary></entry>`;
  }
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n${stylesheets(ctx)}<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">` +
    `<id>${escPage}</id><title>${esc(`Badge changes of ${h.repositoryUrl}`)}</title>` +
    `<subtitle type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>An Atom feed: add its address to a feed reader to hear when a badge of this repository changes. ` +
    `The badges themselves are on <a href="${escPage}">the repository's page</a>.</p></div></subtitle><updated>${isoTime(updated)}</updated>` +
    `<author><name>${esc(ctx.settings.tool.name)}</name></author>` +
    `<link rel="self" type="application/atom+xml" href="${esc(self)}"/><link rel="alternate" type="text/html" href="${escPage}"/>` +
    `<generator>${esc(ctx.settings.tool.name)}</generator>${entries}</feed>\n`
  );
}

/** A feed reader shows the summary alone: a status without a measured value says why. */
function why(ev: RepositoryEvaluations, c: StatusChange): string {
  const causes = unknownCauses(ev, c.t, c.badge);
  return causes.length === 0 ? '' : ` ${esc(causes.join('; '))}.`;
}

const stylesheetsOf = new WeakMap<PagesContext, string>();

/** The xml-stylesheet instructions every feed of a build starts with (the same for all). */
function stylesheets(ctx: PagesContext): string {
  let pi = stylesheetsOf.get(ctx);
  if (pi === undefined) {
    const { css, feedCss } = ctx.env.assets;
    pi = `<?xml-stylesheet type="text/css" href="${href(ctx.env, css.key)}"?>\n<?xml-stylesheet type="text/css" href="${href(ctx.env, feedCss.key)}"?>\n`;
    stylesheetsOf.set(ctx, pi);
  }
  return pi;
}
