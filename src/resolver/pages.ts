// Which file of the human site a request path names (design.md, "The human site"), or null.
// Pure and in the subset CloudFront Functions run (no for…of, spread or destructuring), like
// route.ts: `/` → index.html, `/repositories/<enc>/` → its index.html, assets by name.
import { BADGE_ID_PATTERN } from '../model/layout.ts';
import { canonicalSegment } from './route.ts';

export interface PageRoute {
  key: string;
  contentType: string;
  /** Content-hashed assets never change under their name. */
  immutable: boolean;
}

const BADGE_ID = new RegExp(BADGE_ID_PATTERN);
const FIXED: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/404.html': '404.html',
  '/robots.txt': 'robots.txt',
  '/sitemap.xml': 'sitemap.xml',
  '/favicon.svg': 'favicon.svg',
  '/repositories/search.json': 'repositories/search.json',
};

export const HTML_TYPE = 'text/html; charset=utf-8';

export function pageContentType(key: string): string {
  const dot = key.lastIndexOf('.');
  const ext = dot < 0 ? '' : key.slice(dot + 1);
  switch (ext) {
    case 'html':
      return HTML_TYPE;
    case 'atom':
      return 'application/atom+xml';
    case 'xml':
      return 'application/xml';
    case 'txt':
      return 'text/plain; charset=utf-8';
    case 'css':
      return 'text/css; charset=utf-8';
    case 'js':
      return 'text/javascript; charset=utf-8';
    case 'svg':
      return 'image/svg+xml';
    default:
      return 'application/json';
  }
}

function page(key: string, immutable?: boolean): PageRoute {
  return { key, contentType: pageContentType(key), immutable: immutable === true };
}

/** The page a path names; null when it names none (the caller answers 404). */
export function pageRoute(path: string): PageRoute | null {
  if (path.length > 8192) return null;
  const fixed = FIXED[path];
  if (fixed !== undefined) return page(fixed);
  let m = /^\/assets\/([A-Za-z0-9_-]+\.[0-9a-f]{8,64}\.(?:css|js))$/.exec(path);
  if (m) return page(`assets/${m[1]}`, true);
  m = /^\/sitemaps\/(\d{1,6})\.xml$/.exec(path);
  if (m) return page(`sitemaps/${Number(m[1])}.xml`);
  m = /^\/repositories\/page\/(\d{1,7})\.html$/.exec(path);
  if (m) return page(`repositories/page/${Number(m[1])}.html`);
  m = /^\/badges\/([^/]+)\/(?:index\.html)?$/.exec(path);
  if (m) return BADGE_ID.test(m[1]!) ? page(`badges/${m[1]}/index.html`) : null;
  m = /^\/rules\/(.+?)\/(?:index\.html)?$/.exec(path);
  if (m) {
    let id = m[1]!;
    // The segment arrives encoded (MANUAL%2F…) or decoded by a front end (MANUAL/…).
    if (id.indexOf('%') >= 0) {
      try {
        id = decodeURIComponent(id);
      } catch {
        return null;
      }
    }
    // '.' and '..' stay themselves under encodeURIComponent: never a key segment.
    if (id === '.' || id === '..') return null;
    return page(`rules/${encodeURIComponent(id)}/index.html`);
  }
  m = /^\/repositories\/(.+?)(\/|\/index\.html|\/feed\.atom)?$/.exec(path);
  if (m) {
    const segment = canonicalSegment(m[1]!);
    if (!segment.ok) return null;
    const file = m[2] === '/feed.atom' ? 'feed.atom' : 'index.html';
    return page(`repositories/${segment.encoded}/${file}`);
  }
  return null;
}
