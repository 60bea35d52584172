// Repository pages draw what every page repeats (badge links, embed snippets, rule links,
// chart rows and backdrops) once per build: a page must still hold its own repository only,
// be the same whichever page came before it, and escape its encoded URL in the snippets.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadHistories } from '../src/load/histories.ts';
import { openStore } from '../src/pipeline/locations.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { repositoryPageFiles } from '../src/render/pages/build-pages.ts';
import type { RepositoryEvaluation } from '../src/evaluate/repository.ts';
import { escapeXml } from '../src/render/escape.ts';
import { tempDir } from './helpers/tmp.ts';

// An apostrophe survives encodeURIComponent, so the encoded URL itself needs escaping.
const QUOTED = "https://example.org/o/it's-a-tool";
const PLAIN = 'https://example.org/o/plain';

async function evaluations(): Promise<{
  ctx: Awaited<ReturnType<typeof loadPagesContext>>;
  byUrl: Map<string, RepositoryEvaluation>;
}> {
  const dir = tempDir('badgepress-page-parts-');
  const lines = [QUOTED, PLAIN].flatMap((url, r) =>
    [0, 1, 2].map((i) =>
      JSON.stringify({
        repositoryUrl: url,
        timestamp: 1_760_000_000 + i * 86_400 * 7,
        values: {
          ISSUE_REACTION_TIME: i + r,
          BUS_FACTOR: 2 * i + r,
          SECURITY_POLICY: i > 0,
          DEPENDENTS: 10 * i,
        },
      }),
    ),
  );
  writeFileSync(join(dir, 'scans.ndjson'), `${lines.join('\n')}\n`);
  const config = await resolveConfig(undefined, { store: dir, out: join(dir, 'out') });
  const { settings } = config;
  const shape = loadShape(config);
  const ctx = loadPagesContext(config);
  const byUrl = new Map<string, RepositoryEvaluation>();
  for await (const h of loadHistories(await openStore(settings.store, settings), {
    catalog: shape.evaluator.catalog,
    report: (i) => expect.fail(i.message),
  })) {
    byUrl.set(h.repositoryUrl, shape.evaluator.evaluate(h, 1_763_600_000));
  }
  return { ctx, byUrl };
}

describe('repository pages with parts drawn once per build', () => {
  it('hold only their own repository and do not depend on the page drawn before', async () => {
    const { ctx, byUrl } = await evaluations();
    const quoted = byUrl.get(QUOTED)!;
    const plain = byUrl.get(PLAIN)!;
    const bodies = (ev: RepositoryEvaluation) =>
      repositoryPageFiles(ctx, ev.history, ev).map((f) => f.body);
    const quotedFirst = bodies(quoted);
    const plainAfter = bodies(plain);
    const quotedAgain = bodies(quoted);
    expect(quotedAgain).toEqual(quotedFirst);
    const encQuoted = escapeXml(encodeURIComponent(QUOTED));
    expect(encQuoted).toContain('&#39;');
    for (const body of plainAfter) expect(body).not.toContain(encQuoted);
    const [page] = quotedFirst;
    // The slot that stands for the encoded URL never reaches a page.
    expect(page).not.toContain('\u{e000}');
    for (const b of ctx.thresholds.t.badges) {
      expect(page).toContain(
        `[![${b.id}](${ctx.settings.baseUrl}/api/v1/repositories/${encQuoted}/badges/${b.id}.svg)](${ctx.settings.baseUrl}/repositories/${encQuoted}/)`,
      );
      expect(page).toContain(
        `image:${ctx.settings.baseUrl}/api/v1/repositories/${encQuoted}/badges/${b.id}.svg[${b.id} badge,link=${ctx.settings.baseUrl}/repositories/${encQuoted}/]`,
      );
    }
    expect(plainAfter[0]).toContain(`/repositories/${encodeURIComponent(PLAIN)}/`);
  });
});
