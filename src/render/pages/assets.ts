// The site's static assets: the content-hashed stylesheet and script (immutable, so a new
// build with changed bytes gets a new name), the feeds' stylesheet (also hashed), and the favicon.
import { createHash } from 'node:crypto';
import type { Templates } from '../../config/templates.ts';
import { PAGE_TYPES, SVG_TYPE } from '../../model/http.ts';

interface Asset {
  key: string;
  body: string;
  contentType: string;
}

export interface PageAssets {
  css: Asset;
  js: Asset;
  /** What a browser draws a repository's Atom feed with, after `css` (its colours). */
  feedCss: Asset;
  favicon: Asset;
  /** The config's site.logo, when it names one. */
  logo?: Asset;
}

function hashed(name: string, ext: string, body: string, contentType: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { key: `assets/${name}.${hash}.${ext}`, body, contentType };
}

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#0969da"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3"/></svg>';

/** The assets of the stylesheets and script `templates` hold (config/templates.ts reads them). */
export function pageAssets(
  templates: Pick<Templates, 'css' | 'js' | 'feedCss'>,
  logoSvg?: string,
): PageAssets {
  return {
    ...(logoSvg !== undefined ? { logo: hashed('logo', 'svg', logoSvg, SVG_TYPE) } : {}),
    css: hashed('site', 'css', templates.css, PAGE_TYPES.css!),
    js: hashed('site', 'js', templates.js, PAGE_TYPES.js!),
    feedCss: hashed('feed', 'css', templates.feedCss, PAGE_TYPES.css!),
    favicon: { key: 'favicon.svg', body: FAVICON, contentType: SVG_TYPE },
  };
}
