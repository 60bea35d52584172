// The bench's find-and-browse rows (`npm run bench -- --only browse`, also part of a full run):
// the site-wide files written from N synthetic summaries (default 100,000), in-process, by the
// build's own siteWideFileStream, without building the repositories themselves (a full
// 100,000-repository build takes a quarter of an hour; these files depend on the summaries
// alone). The URLs are the synthetic store's (scripts/lib/synthetic-store.ts: four hosts,
// owners of 25 repositories, GitLab projects two subgroups deep). Reported: the time to write
// them with and without the search's files and pages (the generator's time per file, summed
// by kind), the compressed size of the home page, of the largest group page and of the search's
// pages for finding by name without JavaScript (their count, bytes and the largest), the bytes
// and files a query downloads with JavaScript (every repository's name typed in full, its
// first 1 to 4 characters, and any 1 or 3 characters found in a name), and the growth of RSS
// while the pages were written.
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { siteWideFileStream } from '../src/render/pages/site-wide.ts';
import { byCodeUnits, type RepositorySummary } from '../src/render/pages/summary.ts';
import { endsKey, shardKey } from '../src/render/pages/search-index.ts';
import { repositoryName } from '../src/render/pages/groups.ts';
import { repositoryUrl } from './lib/synthetic-store.ts';

type Say = (name: string, value: string, key?: string, raw?: number | string) => void;

const kB = (n: number) => `${(n / 1024).toFixed(1)} KB`;

export async function browseRows(say: Say, n: number, root: string): Promise<void> {
  const ctx = loadPagesContext(await resolveConfig(undefined, { store: root, out: root }));
  const statuses = ['gold', 'silver', 'bronze', 'fail'];
  const badges = ctx.thresholds.t.badges.map((b) => b.id);
  // The summaries as the build holds them: sorted URLs and one JSON line each.
  const urls = Array.from({ length: n }, (_, i) => repositoryUrl(i)).sort(byCodeUnits);
  const line = (url: string, i: number): string => {
    const s: RepositorySummary = {
      url,
      enc: encodeURIComponent(url),
      scans: 10,
      last: 1_763_000_000 + i,
      badges: Object.fromEntries(
        badges.map((b, j) => [b, statuses[(i * 7 + j * 3 + (i >> 4)) % 4]!]),
      ),
      rules: {},
      changes: [{ t: 1_763_000_000 + i, badge: badges[0]!, from: 'silver', to: 'gold' }],
    };
    return JSON.stringify(s);
  };
  const lines = urls.map(line);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const ms: Record<string, number> = { search: 0, prefix: 0, groups: 0, lists: 0, other: 0 };
  const count: Record<string, number> = { search: 0, prefix: 0, groups: 0, lists: 0, other: 0 };
  const prefix = { raw: 0, gzip: 0, largest: { key: '', gzip: 0 } };
  // Each search file's sizes and what a query reads of it: not its text (56 MB at 100,000
  // repositories, which would count against the heap the writing is measured in).
  const search = new Map<
    string,
    { raw: number; gzip: number; node: { prefix: string; more?: string[]; ends?: number } }
  >();
  let searchBytes = 0;
  let home = 0;
  let biggestGroup = { key: '', gzip: 0 };
  // The search's JSON files (search), its pages for finding by name (prefix; the search page is "other").
  const kind = (key: string) =>
    key.startsWith('search/') && key !== 'search/index.html'
      ? key.endsWith('.html')
        ? 'prefix'
        : 'search'
      : key.startsWith('groups/')
        ? 'groups'
        : key.startsWith('repositories/')
          ? 'lists'
          : 'other';
  const stream = siteWideFileStream(ctx, { urls, lines: () => lines });
  let t = performance.now();
  for (const f of stream) {
    const now = performance.now();
    const k = kind(f.key);
    ms[k]! += now - t;
    count[k]!++;
    const body = String(f.body);
    if (k === 'search') {
      const { prefix, more, ends } = JSON.parse(body) as {
        prefix: string;
        more?: string[];
        ends?: number;
      };
      search.set(f.key, {
        raw: body.length,
        gzip: gzipSync(body).byteLength,
        node: { prefix, more, ends },
      });
      searchBytes += body.length;
    }
    if (k === 'prefix' || f.key === 'search/index.html') {
      const gz = gzipSync(body).byteLength;
      if (k === 'prefix') {
        prefix.raw += body.length;
        prefix.gzip += gz;
      }
      if (gz > prefix.largest.gzip) prefix.largest = { key: f.key, gzip: gz };
    }
    // Group pages (not their lists by badge: those hold up to 100 repositories like any list page).
    if (k === 'groups' && !/\/-\/[A-Za-z0-9]/.test(f.key)) {
      const gz = gzipSync(body).byteLength;
      if (gz > biggestGroup.gzip) biggestGroup = { key: f.key, gzip: gz };
    }
    if (f.key === 'index.html') home = gzipSync(body).byteLength;
    if (count[k]! % 500 === 0) rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    t = performance.now();
  }
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  const total = ms.search! + ms.prefix! + ms.groups! + ms.lists! + ms.other!;
  const at = `at ${n.toLocaleString('en')} repositories`;
  say(
    `browse: site-wide files ${at}, with search`,
    `${(total / 1000).toFixed(1)} s (${count.search! + count.prefix! + count.groups! + count.lists! + count.other!} files)`,
    'browseSiteWideMs',
    Math.round(total),
  );
  say(
    `browse: the same without the search's files and pages`,
    `${((total - ms.search! - ms.prefix!) / 1000).toFixed(1)} s; the search's ${count.search} JSON files took ${(ms.search! / 1000).toFixed(1)} s, its ${count.prefix} pages ${(ms.prefix! / 1000).toFixed(1)} s`,
    'browseSiteWideNoSearchMs',
    Math.round(total - ms.search! - ms.prefix!),
  );
  say(
    `browse: the search's pages (find by name without JavaScript) ${at}`,
    `${count.prefix} pages, ${(prefix.raw / 2 ** 20).toFixed(1)} MB (${(prefix.gzip / 2 ** 20).toFixed(1)} MB gzip)`,
    'prefixPages',
    count.prefix,
  );
  say(
    `browse: largest search page ${at} (target ≤ 30 KB compressed)`,
    `${kB(prefix.largest.gzip)} gzip (${prefix.largest.key})`,
    'prefixPageMaxGzipKb',
    Number((prefix.largest.gzip / 1024).toFixed(1)),
  );
  say(
    `browse: group pages and their lists ${at}`,
    `${count.groups} files, ${(ms.groups! / 1000).toFixed(1)} s; full list ${count.lists} pages, ${(ms.lists! / 1000).toFixed(1)} s`,
    'browseGroupFiles',
    count.groups,
  );
  say(
    `pages: home page ${at} (target ≤ 30 KB compressed)`,
    `${kB(home)} gzip`,
    'homePageGzipKb',
    Number((home / 1024).toFixed(1)),
  );
  say(
    `browse: largest group page ${at} (target ≤ 30 KB compressed)`,
    `${kB(biggestGroup.gzip)} gzip (${biggestGroup.key})`,
    'groupPageMaxGzipKb',
    Number((biggestGroup.gzip / 1024).toFixed(1)),
  );
  say(
    `browse: RSS growth while writing them ${at}`,
    `${Math.round((rssPeak - rssBefore) / 2 ** 20)} MB (summary lines held before: the build holds them too)`,
    'browseRssGrowthMb',
    Math.round((rssPeak - rssBefore) / 2 ** 20),
  );
  // Bytes a query downloads: the files site.js fetches, root first, one per typed character.
  const query = (name: string): { raw: number; gzip: number; files: number } => {
    let file = search.get(shardKey(''))!;
    let raw = file.raw;
    let gzip = file.gzip;
    let files = 1;
    for (let k = 0; file.node.more && k < name.length; k++) {
      if (!file.node.more.includes(name[k]!)) return { raw, gzip, files };
      file = search.get(shardKey(name.slice(0, k + 1)))!;
      raw += file.raw;
      gzip += file.gzip;
      files++;
    }
    // Where the query stops at a prefix with more: its longer names that end with it.
    if (file.node.ends) {
      const ends = search.get(endsKey(file.node.prefix))!;
      raw += ends.raw;
      gzip += ends.gzip;
      files++;
    }
    return { raw, gzip, files };
  };
  const names = [...new Set(urls.map((u) => repositoryName(u).toLowerCase()))];
  // Any part of a name: every distinct run of 1 or 3 characters found anywhere in one.
  const parts = (len: number) => [
    ...new Set(
      names.flatMap((x) =>
        Array.from({ length: Math.max(0, x.length - len + 1) }, (_, k) => x.slice(k, k + len)),
      ),
    ),
  ];
  const rows: Array<[string, string[], string]> = [
    ...[1, 2, 3, 4].map((len): [string, string[], string] => [
      `the first ${len} character${len === 1 ? '' : 's'}`,
      [...new Set(names.map((x) => x.slice(0, len)))],
      `searchBytesMaxGzip${len}`,
    ]),
    ['a whole name', names, 'searchBytesMaxGzipName'],
    ['any 1 character of a name', parts(1), 'searchBytesMaxGzipAny1'],
    ['any 3 characters of a name', parts(3), 'searchBytesMaxGzipAny3'],
  ];
  for (const [what, qs, key] of rows) {
    const sizes = qs.map(query).sort((a, b) => a.gzip - b.gzip);
    const median = sizes[Math.floor(sizes.length / 2)]!;
    const max = sizes[sizes.length - 1]!;
    say(
      `browse: search bytes per query ${at}, ${what} (${qs.length} queries)`,
      `median ${kB(median.gzip)} gzip (${kB(median.raw)} raw), largest ${kB(max.gzip)} gzip (${kB(max.raw)} raw), at most ${Math.max(...sizes.map((z) => z.files))} files`,
      key,
      max.gzip,
    );
  }
  const all = searchBytes;
  say(
    `browse: the search's files ${at}`,
    `${search.size} files, ${(all / 2 ** 20).toFixed(1)} MB in all (the one search.json before: every URL, ${((urls.reduce((a, u) => a + u.length + 3, 0) / 2 ** 20) as number).toFixed(1)} MB a query)`,
    'searchFiles',
    search.size,
  );
}
