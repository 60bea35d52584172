// Issue 34, "the site's face", in the bytes of pages rendered in this process: a repository
// page is titled by the project's name, counts read "1 commit" and "10,000 commits", the site
// has a title of its own apart from the SARIF tool's name. The expected texts are written out
// by hand here, never made by the code under test.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/resolve.ts';
import { counted } from '../src/model/plural.ts';
import { evaluatorA, evaluatorB } from '../src/evaluate/repository.ts';
import type { RepositoryHistory, ScanRecord } from '../src/load/types.ts';
import { repositoryPage } from '../src/render/pages/repository.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { siteWideFiles } from '../src/render/pages/site-wide.ts';
import { sortSummaries, type RepositorySummary } from '../src/render/pages/summary.ts';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { runBuild, shapeBConfig } from './helpers/site-crawl.ts';

const dir = tempDir('badgepress-face-');
const configA = await resolveConfig(undefined, { store: join(ROOT, 'examples/store'), out: dir });
const ctxA = loadPagesContext(configA);
const configB = await resolveConfig(shapeBConfig(dir), {
  store: join(ROOT, 'examples/shape-b/store'),
  out: dir,
});
const ctxB = loadPagesContext(configB);

const T0 = 1_763_000_000;

function history(url: string, values: Array<Record<string, number | boolean>>): RepositoryHistory {
  const scans: ScanRecord[] = values.map((v, i) => ({
    kind: 'scan',
    repositoryUrl: url,
    timestamp: T0 + i * 86_400,
    values: v,
    evidence: {},
    source: `s.ndjson:${i + 1}`,
  }));
  return { repositoryUrl: url, encoded: encodeURIComponent(url), scans, grants: [] };
}

function pageA(url: string, values: Array<Record<string, number | boolean>>): string {
  const t = ctxA.thresholds;
  if (t.shape !== 'A') throw new Error('shape A expected');
  const h = history(url, values);
  return repositoryPage(ctxA, h, evaluatorA(t.t, null).evaluate(h, T0 + values.length * 86_400));
}

function pageB(url: string, values: Array<Record<string, number | boolean>>): string {
  const t = ctxB.thresholds;
  if (t.shape !== 'B') throw new Error('shape B expected');
  const h = history(url, values);
  return repositoryPage(
    ctxB,
    h,
    evaluatorB(t.t, new Map()).evaluate(h, T0 + values.length * 86_400),
  );
}

/** The page's text without tags and entities, spaces collapsed. */
function words(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe('a repository page is titled by the project, not the raw URL', () => {
  it('github.com/curl/curl: "curl/curl" in <title> and <h1>, the URL in the lead', () => {
    const html = pageA('https://github.com/curl/curl', [
      { ISSUE_REACTION_TIME: 1, BUS_FACTOR: 5, SECURITY_POLICY: true },
    ]);
    expect(html).toContain('<title>curl/curl · badgepress</title>');
    expect(html).toMatch(/<h1><bdi>curl\/curl<\/bdi><\/h1>/);
    expect(html).toContain('https://github.com/curl/curl');
  });

  it('a GitLab subgroup keeps every segment after the host: group/sub/project', () => {
    const html = pageA('https://gitlab.example.org/group/sub/project.git', [{ BUS_FACTOR: 5 }]);
    expect(html).toContain('<title>group/sub/project · badgepress</title>');
  });
});

describe('counts: the singular for one, digits grouped for the page locale (en)', () => {
  it('Shape B: "1 release", "at least 1 release", "10,000 commits"', () => {
    const html = words(
      pageB('https://github.com/acme/one', [
        { COMMITS: 10_000, RELEASES: 1, ISSUE_REACTION_TIME: 1, PACKAGES: 0, CI_PIPELINE: 1 },
      ]),
    );
    expect(html).toContain('at least 1 release in the last 6 months');
    expect(html).not.toMatch(/\b1 releases\b/);
    expect(html).toContain('The scan reported 1 release.');
    expect(html).toContain('The scan reported 10,000 commits.');
    expect(html).toContain('at least 1 package in the last 6 months');
    expect(html).toContain('Packages: 1 more package');
    expect(html).not.toMatch(/\b10000\b/);
  });

  it('Shape A: "1 contributor", "3 more contributors for gold" and the value 12,345', () => {
    const html = words(
      pageA('https://github.com/acme/solo', [
        { BUS_FACTOR: 1, ISSUE_REACTION_TIME: 12_345, SECURITY_POLICY: true },
      ]),
    );
    expect(html).toContain(' 1 contributor ');
    expect(html).not.toMatch(/(?<![.\d])1 contributors\b/);
    expect(html).toContain('12,345 days');
    expect(html).toContain('1 more contributor (Bus factor) for bronze');
    expect(html).toContain('3 more contributors (Bus factor) for gold');
  });
});

describe('the site has a title and logo of its own, apart from the SARIF tool', () => {
  it('site.title and site.logo name the pages; tool.name still names the SARIF driver', async () => {
    const at = join(dir, 'titled');
    mkdirSync(at, { recursive: true });
    const logo =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#123456"/></svg>';
    writeFileSync(join(at, 'logo.svg'), logo);
    writeFileSync(join(at, 'site.yaml'), 'site:\n  title: ACME project health\n  logo: logo.svg\n');
    const out = join(at, 'out');
    await runBuild([
      '--config',
      join(at, 'site.yaml'),
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      out,
    ]);
    const home = readFileSync(join(out, 'index.html'), 'utf8');
    expect(home).toContain('<title>ACME project health</title>');
    expect(home).toContain('<h1>ACME project health</h1>');
    const img =
      /<a class="brand" href="\/"><img class="logo" src="\/(assets\/logo\.[0-9a-f]{12}\.svg)" alt="" width="24" height="24">ACME project health<\/a>/.exec(
        home,
      );
    expect(img).not.toBeNull();
    expect(readFileSync(join(out, img![1]!), 'utf8')).toBe(logo);
    const repo = readdirSync(join(out, 'api/v1/repositories'))[0]!;
    const sarif = JSON.parse(readFileSync(join(out, 'api/v1/repositories', repo, 'sarif'), 'utf8'));
    expect(sarif.runs[0].tool.driver.name).toBe('badgepress');
  });

  it('a logo that is not there is a configuration error naming the file and key', async () => {
    const at = join(dir, 'nologo');
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, 'site.yaml'), 'site:\n  logo: missing.svg\n');
    await expect(resolveConfig(join(at, 'site.yaml'), { store: dir, out: dir })).rejects.toThrow(
      /site\.yaml:2.*site\.logo: cannot read .*missing\.svg \(ENOENT\)/s,
    );
  });
});

/** Summary lines of `n` repositories first scanned on one day, and one that changed a day later. */
function firstBuild(ctx: typeof ctxB, n: number): Map<string, string> {
  const byUrl = new Map<string, string>();
  const ids = ctx.thresholds.t.badges.map((b) => b.id);
  for (let i = 0; i <= n; i++) {
    const url = `https://example.org/p${i}`;
    const badges = Object.fromEntries(ids.map((id) => [id, 'fail']));
    const changes = ids.map((id) => ({ t: T0 + i, badge: id, from: null, to: 'fail' }));
    if (i === n)
      changes.push({ t: T0 + 86_400, badge: ids[0]!, from: 'fail', to: 'bronze' } as never);
    const s: RepositorySummary = {
      url,
      enc: encodeURIComponent(url),
      scans: 1,
      last: T0 + i,
      badges,
      rules: {},
      changes,
    };
    byUrl.set(url, JSON.stringify(s));
  }
  return byUrl;
}

describe('the home page after a first build', () => {
  const files = siteWideFiles(ctxB, sortSummaries(firstBuild(ctxB, 19)));
  const home = String(files.find((f) => f.key === 'index.html')!.body);

  it('summarises the first scans of a day in one line, beside the real changes', () => {
    const recent = /<h2 id="recent">Recent status changes<\/h2><ul>(.*?)<\/ul>/.exec(home)![1]!;
    const lines = [...recent.matchAll(/<li>(.*?)<\/li>/g)].map((m) => words(m[1]!).trim());
    const id = ctxB.thresholds.t.badges[0]!.id;
    expect(lines).toEqual([
      `2025-11-14 https://example.org/p19 : ${id} none → bronze`,
      '2025-11-13 20 repositories scanned for the first time',
    ]);
    expect(home).not.toContain('first scanned');
  });

  it('heads a list that fits the home page as the whole list, not "the first 20"', () => {
    expect(home).toContain('<h3 id="first">In natural order</h3>');
    expect(home).not.toContain('The first 20');
  });

  it('draws "none" in a class of its own, never in fail\'s colours', () => {
    const bars = [...home.matchAll(/<text[^>]*>(\w+)<\/text><rect class="band-(\w+)"/g)].map(
      (m) => [m[1], m[2]],
    );
    expect(bars).toContainEqual(['none', 'none']);
    expect(bars.filter(([label, kind]) => label !== kind)).toEqual([]);
    const css = ctxB.env.assets.css.body;
    // none and unknown each have a rule of their own, drawn in neither fail's colour nor each other's.
    const fills = ['none', 'unknown', 'fail'].map(
      (k) => new RegExp(`\\.chart \\.band-${k}[^{]*\\{([^}]*)\\}`).exec(css)?.[1],
    );
    expect(fills.every((f) => f !== undefined)).toBe(true);
    expect(new Set(fills).size).toBe(3);
    expect(fills.slice(0, 2).join(' ')).not.toMatch(/band-fail|--fail/);
  });
});

describe("a repository's scans table folds to the latest 10", () => {
  const day = (i: number) => new Date((T0 + i * 86_400) * 1000).toISOString().slice(0, 10);
  const rowDates = (html: string) =>
    [...html.matchAll(/<th scope="row"><time datetime="(\d{4}-\d\d-\d\d)T/g)].map((m) => m[1]);

  it('12 scans: the newest 10 open, the 2 older in a <details> that works without script', () => {
    const html = pageA(
      'https://github.com/acme/busy',
      Array.from({ length: 12 }, () => ({ BUS_FACTOR: 5 })),
    );
    const scans = /<section aria-labelledby="scans">(.*?)<\/section>/s.exec(html)![1]!;
    const [open, folded] = scans.split('<details class="older-scans">');
    expect(rowDates(open!)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map(day));
    expect(folded).toMatch(/^<summary>2 older scans<\/summary>/);
    expect(rowDates(folded!)).toEqual([day(1), day(0)]);
    // Every scan's files are still linked.
    for (let i = 0; i < 12; i++) expect(scans).toContain(`/at/${T0 + i * 86_400}/sarif`);
  });

  it('10 scans: one table, nothing folded', () => {
    const html = pageA(
      'https://github.com/acme/calm',
      Array.from({ length: 10 }, () => ({ BUS_FACTOR: 5 })),
    );
    expect(html).not.toContain('older-scans');
    expect(rowDates(html)).toHaveLength(10);
  });
});

describe('counts past 999 on the site-wide pages', () => {
  it('the list pages and the search page group their digits: "All 1,200", "Repositories 1,001 to 1,100"', () => {
    const byUrl = new Map<string, string>();
    for (let i = 0; i < 1200; i++) {
      const url = `https://example.org/r${String(i).padStart(4, '0')}`;
      byUrl.set(
        url,
        JSON.stringify({
          url,
          enc: encodeURIComponent(url),
          scans: 1,
          last: T0,
          badges: {},
          rules: {},
          changes: [],
        }),
      );
    }
    const files = siteWideFiles(ctxB, sortSummaries(byUrl));
    const body = (key: string) => words(String(files.find((f) => f.key === key)?.body));
    expect(body('repositories/index.html')).toContain('All 1,200, in natural order');
    expect(String(files.find((f) => f.key === 'repositories/page/11.html')?.body)).toContain(
      '<meta name="description" content="Repositories 1,001 to 1,100.">',
    );
    expect(body('search/r/index.html')).toContain(
      '1,200 repositories, hosts and groups whose names start with r',
    );
    expect(body('index.html')).toContain('All 1,200 repositories');
  });
});

describe('counted(), the one helper for every noun', () => {
  it('makes the singular of a unit written in the plural, and leaves other units alone', () => {
    const one = (unit: string) => counted(1, unit);
    expect(
      [
        'commits',
        'releases',
        'contributors',
        'days',
        'runs',
        'packages',
        'dependencies',
        'classes',
        'boxes',
        'patches',
      ].map(one),
    ).toEqual([
      '1 commit',
      '1 release',
      '1 contributor',
      '1 day',
      '1 run',
      '1 package',
      '1 dependency',
      '1 class',
      '1 box',
      '1 patch',
    ]);
    expect(['%', 'ms', 'status', 'analysis', ''].map(one)).toEqual([
      '1 %',
      '1 ms',
      '1 status',
      '1 analysis',
      '1',
    ]);
    expect([
      counted(0, 'commits'),
      counted(2, 'commits'),
      counted(1_234_567, 'commits'),
      counted(0.5, 'days'),
    ]).toEqual(['0 commits', '2 commits', '1,234,567 commits', '0.5 days']);
    expect([
      counted(1, 'repository', 'repositories'),
      counted(10_000, 'repository', 'repositories'),
    ]).toEqual(['1 repository', '10,000 repositories']);
  });
});
