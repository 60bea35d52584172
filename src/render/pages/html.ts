// The page shell every human page shares, and the small helpers pages are written with.
// Every data-driven string goes through `esc` (text and quoted attributes); strings that may
// carry right-to-left or bidi-override characters (URLs, evidence, notes) also go in <bdi>,
// so they cannot reorder the text around them.
import { escapeXml } from '../escape.ts';
import type { PageAssets } from './assets.ts';

export const esc = escapeXml;

/**
 * The open end of a band, as an entity: one character above U+00FF in a page's fixed markup
 * makes V8 hold the whole page as a two-byte string, twice the memory while it is built and a
 * slower encoding when it is written.
 */
export const UNBOUNDED = '&infin;';

/** Untrusted text, escaped and isolated for bidi. */
export function text(s: string): string {
  return `<bdi>${esc(s)}</bdi>`;
}

const BREAKS_AFTER = /[-/\u2010-\u2014]/;

/** Escaped text for a table cell: each word holding a hyphen, dash or slash kept on one line (a browser may break after one). */
export function cellWords(escaped: string): string {
  if (!BREAKS_AFTER.test(escaped)) return escaped;
  return escaped.replace(/\S*[-/\u2010-\u2014]\S*/g, (w) => `<span class="nw">${w}</span>`);
}

/** Untrusted text for a table cell: escaped, isolated for bidi, its words kept whole. */
export function cellText(s: string): string {
  return `<bdi>${cellWords(esc(s))}</bdi>`;
}

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text for places <bdi> cannot go (<title>, attributes): bidi controls shown by code point. */
export function flat(s: string): string {
  return esc(s.replace(BIDI_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`));
}

/** An outside address as an href: anything but printable ASCII percent-encoded, then escaped. */
export function externalHref(url: string): string {
  return esc(url.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)));
}

export interface PageEnv {
  /** The site's path prefix without a trailing slash ("" when served at the host root). */
  root: string;
  /** Absolute address prefix (baseUrl), for feeds, the sitemap and embed snippets. */
  baseUrl: string;
  siteName: string;
  toolLine: string;
  assets: PageAssets;
}

export function pageEnv(
  baseUrl: string,
  siteName: string,
  toolLine: string,
  assets: PageAssets,
): PageEnv {
  const root = new URL(`${baseUrl}/`).pathname.replace(/\/+$/, '');
  return { root, baseUrl, siteName, toolLine, assets };
}

/** Path of a site key, as an href (the key's own characters are already URL-safe). */
export function href(env: PageEnv, path: string): string {
  return esc(`${env.root}/${path}`);
}

interface PageParts {
  title: string;
  description: string;
  /** Already-escaped HTML of <main>. */
  main: string;
  /** An Atom feed to announce, as a site path. */
  feed?: string;
}

/**
 * The header's search: a GET form to the search page, which works without JavaScript (its
 * prefix pages find a name a character a click, and it leads to the hosts); site.js answers as
 * one types from the search's files (search-index.ts).
 */
function findForm(env: PageEnv): string {
  const data = `data-search="${href(env, 'search/')}" data-pages="${href(env, 'repositories/')}" data-groups="${href(env, 'groups/')}" data-api="${href(env, 'api/v1/repositories/')}"`;
  return (
    `<form class="find find-head" role="search" aria-label="Site search" action="${href(env, 'search/')}" method="get" ${data}>` +
    `<label for="find-q">Find a repository</label><input id="find-q" name="q" type="search" autocomplete="off" spellcheck="false"><button type="submit">Find</button></form>`
  );
}

export function renderPage(env: PageEnv, p: PageParts): string {
  const feed = p.feed
    ? `<link rel="alternate" type="application/atom+xml" title="Badge changes" href="${href(env, p.feed)}">`
    : '';
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${flat(p.title)}</title><meta name="description" content="${flat(p.description)}">` +
    `<link rel="stylesheet" href="${href(env, env.assets.css.key)}"><link rel="icon" href="${href(env, env.assets.favicon.key)}" type="image/svg+xml">${feed}` +
    `<script src="${href(env, env.assets.js.key)}" defer></script></head>\n` +
    `<body><a class="skip" href="#main">Skip to content</a>` +
    `<header><nav aria-label="Site"><a class="brand" href="${href(env, '')}">${env.assets.logo ? `<img class="logo" src="${href(env, env.assets.logo.key)}" alt="" width="24" height="24">` : ''}${esc(env.siteName)}</a><a href="${href(env, 'repositories/')}">Repositories</a><a href="${href(env, 'groups/')}">Hosts and groups</a></nav>` +
    findForm(env) +
    `</header>\n` +
    `<main id="main">${p.main}</main>\n` +
    `<footer><p>${esc(env.toolLine)}. The same data as JSON and SARIF is under <code>${esc(env.root)}/api/v1/</code>.</p></footer></body></html>\n`
  );
}

export function table(
  caption: string,
  head: string[],
  rows: string[][],
  numeric: number[] = [],
): string {
  // One string grown cell by cell: every page has tables, and joining each row and then the
  // rows copied every cell twice more.
  let out = `<div class="table-wrap" tabindex="0"><table><caption>${caption}</caption><thead><tr>`;
  for (const h of head) out += `<th scope="col">${h}</th>`;
  out += '</tr></thead><tbody>';
  for (const r of rows) {
    out += '<tr>';
    for (let i = 0; i < r.length; i++)
      out +=
        i === 0
          ? `<th scope="row">${r[i]}</th>`
          : numeric.length > 0 && numeric.includes(i)
            ? `<td class="num">${r[i]}</td>`
            : `<td>${r[i]}</td>`;
    out += '</tr>';
  }
  return `${out}</tbody></table></div>`;
}

/** A status word, styled by class and always spelled out (never colour alone). */
export function statusWord(status: string): string {
  let word = statusWords.get(status);
  if (word === undefined) {
    word = `<span class="status st-${esc(status)}">${esc(status)}</span>`;
    // A handful of statuses exist; the bound only guards against a caller passing data.
    if (statusWords.size < 64) statusWords.set(status, word);
  }
  return word;
}

const statusWords = new Map<string, string>();
