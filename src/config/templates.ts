// The package's templates/ the render stage fills in: the OpenAPI description, the site's
// stylesheets (pages, feeds) and script, and the markup of each badge style. Read here, once per process, into
// the resolved configuration, so rendering turns data into bytes and reads no file. The compiled CLI reads the OpenAPI
// template parsed already (scripts/compile.mjs writes it beside this module), so no start
// parses its YAML (what that saves: docs/performance.md, "Start-up").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { precompiled } from '../io/precompiled.ts';
import { type BadgeStyleName, EXTRA_BADGE_STYLES } from '../model/layout.ts';
import type { Settings } from './types.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Templates {
  /** templates/openapi.yaml parsed; undefined when the config writes no openapi.json. */
  openapi: Json | undefined;
  /** templates/site.css and site.js, as text. */
  css: string;
  js: string;
  /** templates/feed.css: what a browser draws a repository's Atom feed with (beside site.css). */
  feedCss: string;
  /** templates/badge-<style>.svg.mustache, one a style. */
  badges: BadgeTemplates;
}

/** The mustache template of each badge style, as one line of markup (see badgeTemplates). */
export type BadgeTemplates = Readonly<Record<BadgeStyleName, string>>;

const templateFile = (name: string) =>
  fileURLToPath(new URL(`../../templates/${name}`, import.meta.url));
/** The OpenAPI template parsed, as scripts/compile.mjs writes it beside the compiled module. */
const PARSED_OPENAPI = './openapi-template.json';

let openapi: Json | undefined;
let badges: BadgeTemplates | undefined;
const texts = new Map<string, string>();

function text(name: string): string {
  let t = texts.get(name);
  if (t === undefined) texts.set(name, (t = readFileSync(templateFile(name), 'utf8')));
  return t;
}

function parseOpenapi(): Json {
  return parse(readFileSync(templateFile('openapi.yaml'), 'utf8')) as Json;
}

/**
 * A badge template as one line of markup. The files are written one element a line, indented,
 * for reading; a badge is one line, so each line break with the white space around it, and the
 * file's leading and trailing white space, are dropped (break lines between tags only).
 */
function oneLine(markup: string): string {
  return markup.trim().replace(/\s*\n\s*/g, '');
}

/** The badge templates (tests and the bench draw badges with these too). */
export function badgeTemplates(): BadgeTemplates {
  badges ??= Object.fromEntries(
    ['flat', ...EXTRA_BADGE_STYLES].map((style) => [
      style,
      oneLine(text(`badge-${style}.svg.mustache`)),
    ]),
  ) as Record<BadgeStyleName, string>;
  return badges;
}

/** The OpenAPI description as source, before a deployment's values are filled in. */
export function openapiTemplate(): Json {
  openapi ??= precompiled<Json>(import.meta.url, PARSED_OPENAPI) ?? parseOpenapi();
  return openapi;
}

/** The templates a build with these settings renders from. */
export function readTemplates(settings: Pick<Settings, 'openapi'>): Templates {
  return {
    openapi: settings.openapi ? openapiTemplate() : undefined,
    css: text('site.css'),
    js: text('site.js'),
    feedCss: text('feed.css'),
    badges: badgeTemplates(),
  };
}

/** For scripts/compile.mjs: the parsed OpenAPI template, as the file the compiled module reads. */
export function openapiTemplateSource(): { path: string; text: string } {
  return {
    path: fileURLToPath(new URL(PARSED_OPENAPI, import.meta.url)),
    text: JSON.stringify(parseOpenapi()),
  };
}
