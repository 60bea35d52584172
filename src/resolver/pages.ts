// Which file of the human site a request path names, or null.
// Pure and in the subset CloudFront Functions run (no for…of, spread or destructuring), like
// route.ts. Generic, so the edge bundles stay small: a path names the key it spells (`…/` →
// `…/index.html`) when its segments are plain names ([A-Za-z0-9_.-], none empty or starting
// with ".": no `..`, and `.badgepress/` stays private); only repository and rule pages are
// special, as their segment arrives encoded or decoded. A key nobody wrote is a 404.
import { canonicalSegment } from './route.ts';
import { JSON_TYPE, PAGE_TYPES } from '../model/http.ts';

export interface PageRoute {
  key: string;
  contentType: string;
  /** Content-hashed assets never change under their name. */
  immutable: boolean;
}

/** The one API file outside repositories: the site's OpenAPI description. */
const OPENAPI_PATH = '/api/v1/openapi.json';

export function pageContentType(key: string): string {
  return PAGE_TYPES[key.slice(key.lastIndexOf('.') + 1)] || JSON_TYPE;
}

/**
 * No page key is longer than an S3 key may be (1024 bytes; escapes can lengthen a rule id's),
 * and none has a segment over 255 bytes: no build writes one (file systems refuse it), so the
 * store is never asked for one (s3rver and file-backed origins fail such a name with a 5xx).
 */
function page(key: string): PageRoute | null {
  return key.length > 1024 || /[^/]{256}/.test(key)
    ? null
    : {
        key,
        contentType: pageContentType(key),
        immutable: /^assets\/[^/]+\.[0-9a-f]{8,64}\.(css|js)$/.test(key),
      };
}

/** The page a path names; null when it names none (the caller answers 404). */
export function pageRoute(path: string): PageRoute | null {
  if (path.length > 1024 || (path.indexOf('/api/') === 0 && path !== OPENAPI_PATH)) return null;
  let m = /^\/repositories\/(.+?)(\/|\/index\.html|\/feed\.atom)$/.exec(path);
  if (m) {
    const segment = canonicalSegment(m[1]!);
    return segment.ok
      ? page(
          `repositories/${segment.encoded}/${m[2] === '/feed.atom' ? 'feed.atom' : 'index.html'}`,
        )
      : null;
  }
  m = /^\/rules\/(.+?)\/(?:index\.html)?$/.exec(path);
  if (m) {
    let id = m[1]!;
    // The id arrives encoded (MANUAL%2F…) or decoded by a front end (MANUAL/…).
    try {
      id = decodeURIComponent(id);
    } catch {
      return null;
    }
    // '.' and '..' stay themselves under encodeURIComponent: never a key segment.
    // model/layout.ts rulePagePath spelled inline: a call costs the edge bundles bytes they lack.
    return id === '.' || id === '..' ? null : page(`rules/${encodeURIComponent(id)}/index.html`);
  }
  if (!/^(\/[\w-][\w.-]*)*\/?$/.test(path)) return null;
  return page(path.slice(1) + (path.slice(-1) === '/' ? 'index.html' : ''));
}
