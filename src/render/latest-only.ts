// The files only a repository's latest result has, from what both shapes give: each badge's
// look (label, message, colour) and the code-scanning report. Which are written follows the
// site config (styles, shieldsEndpoint, codeScanning).
import type { SiteConfig } from '../config/types.ts';
import { EXTRA_BADGE_STYLES } from '../model/layout.ts';
import { jsonBytes } from './sarif-common.ts';
import { renderedFiles, type RenderedFile, type RenderFilter } from './shape.ts';
import { shieldsEndpoint } from './shields.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';

export function latestOnlyFiles(site: SiteConfig, badges: BadgeRenderer, looks: ReadonlyArray<{ badgeId: string; look: BadgeLook }>, codeScanning: () => object, filter?: RenderFilter): RenderedFile[] {
  const { files, add } = renderedFiles(filter);
  for (const { badgeId, look } of looks) {
    for (const style of EXTRA_BADGE_STYLES) {
      if (site.styles.includes(style)) add({ kind: 'styled', badgeId, style }, () => badges.render(look, style));
    }
    if (site.shieldsEndpoint) add({ kind: 'shields', badgeId }, () => jsonBytes(shieldsEndpoint(look, site.cache.latestMaxAge)));
  }
  if (site.codeScanning) add({ kind: 'code-scanning' }, () => jsonBytes(codeScanning()));
  return files;
}
