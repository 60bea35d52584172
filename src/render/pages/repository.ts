// One page per repository (repositories/<enc>/index.html): latest badges with their criteria
// and what would raise them, history charts, embed snippets and the table of scans.
import type { RuleA, RuleB } from '../../config/types.ts';
import type { BadgeA, CriterionA, EvaluationA } from '../../evaluate/shape-a.ts';
import { thresholdText, type BadgeB, type EvaluationB } from '../../evaluate/shape-b.ts';
import type { RepositoryHistory, ScanRecord } from '../../load/types.ts';
import { dataAgeDays } from '../../evaluate/evidence.ts';
import { API_PREFIX } from '../../model/layout.ts';
import { statusChart, timeScale, valueChart, type ChartBand, type TimeScale } from './chart.ts';
import {
  pagePaths,
  SHOWN_LEVELS_B,
  shownStatus,
  type PagesContext,
  type RepositoryEvaluations,
} from './context.ts';
import { CHART_LEVELS_A, UNKNOWN } from '../../model/status.ts';
import { expiresAt } from '../../model/expiry.ts';
import {
  cellText,
  cellWords,
  esc,
  UNBOUNDED,
  externalHref,
  href,
  renderPage,
  statusWord,
  table,
  text,
} from './html.ts';
import { counted, numberText } from '../../model/plural.ts';
import { isoDate, isoTime } from '../../model/calendar.ts';
import { projectName } from './groups.ts';
import { raiseBadgeA, raiseBadgeB, raiseCriterionA, needForB } from './raise.ts';

function apiPath(encoded: string, rest: string): string {
  return `${API_PREFIX}${encoded}/${rest}`;
}

function link(ctx: PagesContext, path: string, label: string): string {
  return `<a href="${href(ctx.env, path)}">${label}</a>`;
}

/** The escaped href of the repository's API directory (with its slash): its links extend it. */
function apiHref(ctx: PagesContext, encoded: string): string {
  return href(ctx.env, apiPath(encoded, ''));
}

function badgeImage(api: string, badge: BadgeParts, badgeId: string, status: string): string {
  return `<img class="badge-img" src="${api}badges/${badge.escId}.svg" alt="${esc(`${badgeId}: ${status}`)}">`;
}

function snippetsHtml(ctx: PagesContext, encoded: string, badgeId: string): string {
  const img = `${ctx.settings.baseUrl}/${apiPath(encoded, `badges/${badgeId}.svg`)}`;
  const page = `${ctx.settings.baseUrl}/${pagePaths.repository(encoded)}`;
  const forms: Array<[string, string]> = [
    ['Markdown', `[![${badgeId}](${img})](${page})`],
    ['HTML', `<a href="${page}"><img src="${img}" alt="${badgeId} badge"></a>`],
    ['reStructuredText', `.. image:: ${img}\n   :alt: ${badgeId} badge\n   :target: ${page}`],
    ['AsciiDoc', `image:${img}[${badgeId} badge,link=${page}]`],
  ];
  const blocks = forms.map(
    ([name, code]) =>
      `<div class="snippet" data-copy><div class="snippet-head"><span>${name}</span></div><pre><code>${esc(code)}</code></pre></div>`,
  );
  return `<details><summary>Embed the ${esc(badgeId)} badge</summary>${blocks.join('')}</details>`;
}

/**
 * Stands for a repository's encoded URL in markup drawn once per build: a private-use
 * character, which escaping leaves alone and an encoded URL (ASCII) never holds.
 */
const ENCODED_SLOT = '\u{e000}';

/**
 * What every repository page repeats, drawn once per build: per badge its escaped id, the
 * link to its page and its embed snippets (with a slot for the repository); per rule its
 * link, heading and chart bands. Escaping text that is the same on every page was most of a
 * page's cost.
 */
interface BadgeParts {
  escId: string;
  meansLink: string;
  /** The snippets' markup cut at each ENCODED_SLOT; undefined when the config holds one. */
  snippetParts: string[] | undefined;
}

interface RuleParts {
  link: string;
  heading: string;
  bands: ChartBand[];
}

interface PageConstants {
  badges: Map<string, BadgeParts>;
  rules: WeakMap<object, RuleParts>;
  /** The README snippet of every badge, cut at each ENCODED_SLOT, per list of badge ids. */
  readme: Map<string, string[] | undefined>;
}

const constantsOf = new WeakMap<PagesContext, PageConstants>();

function pageConstants(ctx: PagesContext): PageConstants {
  let c = constantsOf.get(ctx);
  if (!c)
    constantsOf.set(ctx, (c = { badges: new Map(), rules: new WeakMap(), readme: new Map() }));
  return c;
}

function badgeParts(ctx: PagesContext, id: string): BadgeParts {
  const { badges } = pageConstants(ctx);
  let parts = badges.get(id);
  if (!parts) {
    const slotFree = !`${ctx.settings.baseUrl}${id}`.includes(ENCODED_SLOT);
    parts = {
      escId: esc(id),
      meansLink: link(ctx, pagePaths.badge(id), `What ${esc(id)} means`),
      snippetParts: slotFree ? snippetsHtml(ctx, ENCODED_SLOT, id).split(ENCODED_SLOT) : undefined,
    };
    badges.set(id, parts);
  }
  return parts;
}

function ruleParts(ctx: PagesContext, rule: RuleA | RuleB, bands: () => ChartBand[]): RuleParts {
  const { rules } = pageConstants(ctx);
  let parts = rules.get(rule);
  if (!parts) {
    parts = {
      link: link(ctx, pagePaths.rule(rule.id), cellText(rule.name)),
      heading: `<h3>${esc(rule.name)}</h3>`,
      bands: bands(),
    };
    rules.set(rule, parts);
  }
  return parts;
}

function readmeSnippetHtml(
  ctx: PagesContext,
  encoded: string,
  badgeIds: readonly string[],
): string {
  const page = `${ctx.settings.baseUrl}/${pagePaths.repository(encoded)}`;
  const line = badgeIds
    .map(
      (id) =>
        `[![${id}](${ctx.settings.baseUrl}/${apiPath(encoded, `badges/${id}.svg`)})](${page})`,
    )
    .join('\n');
  return (
    `<section aria-labelledby="embed"><h2 id="embed">Embed the badges</h2><div class="snippet" data-copy><div class="snippet-head"><span>Markdown for a README</span></div>` +
    `<pre><code>${esc(line)}</code></pre></div><p>Each badge's section below has the same for one badge, in HTML, reStructuredText and AsciiDoc too.</p></section>`
  );
}

/** The snippet at the top of a repository page: every badge, linked to the page, in Markdown. */
function readmeSnippet(ctx: PagesContext, encoded: string, badgeIds: readonly string[]): string {
  const { readme } = pageConstants(ctx);
  const key = badgeIds.join('\n');
  let parts = readme.get(key);
  if (!readme.has(key)) {
    parts = `${ctx.settings.baseUrl}${key}`.includes(ENCODED_SLOT)
      ? undefined
      : readmeSnippetHtml(ctx, ENCODED_SLOT, badgeIds).split(ENCODED_SLOT);
    readme.set(key, parts);
  }
  return parts ? parts.join(esc(encoded)) : readmeSnippetHtml(ctx, encoded, badgeIds);
}

/** The embed snippets of one badge of one repository. */
function snippets(ctx: PagesContext, encoded: string, badgeId: string): string {
  const parts = badgeParts(ctx, badgeId).snippetParts;
  // Escaping works character by character, and the slot sits between ASCII characters: the
  // escaped pieces joined by the escaped encoded URL are the escaped whole.
  return parts ? parts.join(esc(encoded)) : snippetsHtml(ctx, encoded, badgeId);
}

function valueText(c: CriterionA): string {
  // Its cause (and when) is the Evidence cell beside it.
  if (c.value === null) return 'not measured';
  if (c.rule.type === 'boolean') return c.value ? 'present' : 'absent';
  return esc(counted(c.value as number, c.rule.unit));
}

function bandText(c: CriterionA): string {
  if (c.rule.type === 'boolean')
    return `present: ${c.rule.positiveStatus}; absent: ${c.rule.negativeStatus}`;
  if (!c.range) return '';
  return `${numberText(c.range.min)}..${c.range.max === null ? UNBOUNDED : numberText(c.range.max)}${c.rule.unit ? ` ${esc(c.rule.unit)}` : ''}`;
}

/** A chart id unique within its page: numbered in the order the page draws its charts. */
function chartId(page: PageShared, prefix: string): string {
  return `${prefix}-${++page.charts}`;
}

function bandsOfA(rule: RuleA): ChartBand[] {
  return rule.type === 'numeric'
    ? rule.thresholds.map((b) => ({ min: b.min, max: b.max, label: b.status, kind: b.status }))
    : [];
}

/** A history chart's text alternative: the last 12 scans, each its date and label (labels[i] is scan i's). */
function historyDesc(page: PageShared, labels: readonly string[]): string {
  const from = Math.max(0, labels.length - 12);
  const head =
    from > 0
      ? `The last ${numberText(labels.length - from)} of ${counted(labels.length, 'scan', 'scans')}: `
      : '';
  let shown = '';
  for (let i = from; i < labels.length; i++)
    shown += `${i > from ? '; ' : ''}${page.dates[i]} ${labels[i]}`;
  return `${head}${shown}.`;
}

function badgeSectionA(
  ctx: PagesContext,
  h: RepositoryHistory,
  ev: { scans: EvaluationA[]; latest: EvaluationA },
  b: BadgeA,
  index: number,
  page: PageShared,
): string {
  const id = b.def.id;
  const parts = badgeParts(ctx, id);
  const rows = b.criteria.map((c) => [
    ruleParts(ctx, c.rule, () => bandsOfA(c.rule)).link,
    cellWords(valueText(c)),
    statusWord(c.status),
    cellWords(bandText(c)),
    cellText(c.provenance.evidence),
    (() => {
      const raise = raiseCriterionA(c);
      return raise.length === 0
        ? c.status === 'gold'
          ? 'already gold'
          : ''
        : `<ul class="raise">${raise.map((r) => `<li>${cellWords(esc(r))}</li>`).join('')}</ul>`;
    })(),
  ]);
  const raise = raiseBadgeA(b);
  const raiseLine =
    b.status === 'expired'
      ? `<p>The badge has expired because its last scan is more than ${counted(ctx.settings.expireAfterDays!, 'day', 'days')} old; a new scan restores it.</p>`
      : b.status === UNKNOWN
        ? unknownLine(b)
        : raise && raise.needs.length > 0
          ? `<p><strong>For ${esc(raise.target)}:</strong> ${raise.needs.map((n) => esc(n)).join('; ')}.</p>`
          : b.status === 'gold'
            ? '<p>This is the highest status.</p>'
            : '';
  const points = ev.scans.map((s) => ({ t: s.timestamp, status: s.badges[index]!.status }));
  const chart = statusChart(
    {
      id: chartId(page, 'badge'),
      title: `${id} status over time`,
      desc: historyDesc(
        page,
        points.map((p) => p.status),
      ),
    },
    CHART_LEVELS_A,
    points,
    page.scale,
  );
  return (
    `<section aria-labelledby="badge-${parts.escId}"><h2 id="badge-${parts.escId}">${parts.escId} ${badgeImage(page.api, parts, id, b.status)}</h2>` +
    `<p>Status: ${statusWord(b.status)}. ${parts.meansLink}.</p>` +
    expiryLine(ctx, ev.latest.timestamp, b.status) +
    raiseLine +
    table(
      `${esc(id)} criteria (any fail fails the badge; else any unknown makes it unknown; else it takes the worst status)`,
      ['Rule', 'Value', 'Status', 'Band', 'Evidence', 'What would raise it'],
      rows,
    ) +
    `<h3>${esc(id)} history</h3>${chart}` +
    snippets(ctx, h.encoded, id) +
    `</section>`
  );
}

/** An unknown badge: which criteria have no value, and that a scan measuring them decides it. */
function unknownLine(b: BadgeA): string {
  const unknown = b.criteria
    .filter((c) => c.status === UNKNOWN)
    .map((c) => `${esc(c.rule.name)} (${esc(c.cause ?? 'not measured')})`);
  return `<p>The badge is unknown, not failed: nothing measured fails it, and ${unknown.join('; ')} ${unknown.length === 1 ? 'has' : 'have'} no value. A scan that measures ${unknown.length === 1 ? 'it' : 'them'} decides the badge.</p>`;
}

function expiryLine(ctx: PagesContext, scanTime: number, status: string): string {
  const days = ctx.settings.expireAfterDays;
  if (ctx.settings.shape !== 'A' || days === null) return '';
  const at = expiresAt(scanTime, days);
  return status === 'expired'
    ? `<p>Expired on ${isoDate(at)}.</p>`
    : `<p>Expires on ${isoDate(at)} unless a newer scan arrives.</p>`;
}

function ruleChartsA(ctx: PagesContext, ev: { scans: EvaluationA[] }, page: PageShared): string {
  const t = ctx.thresholds;
  if (t.shape !== 'A') return '';
  let charts = '';
  t.t.rules.forEach((rule, i) => {
    if (rule.type !== 'numeric') return;
    const points = ev.scans.map((s) => ({
      t: s.timestamp,
      value: s.criteria[i]!.value as number | null,
    }));
    // Scan times are unique per repository (the loader drops duplicates): scan j is point j.
    const desc = historyDesc(
      page,
      points.map((p, j) =>
        p.value === null
          ? `${ev.scans[j]!.criteria[i]!.status} (not measured)`
          : `${counted(p.value, rule.unit)} (${ev.scans[j]!.criteria[i]!.status})`,
      ),
    );
    const parts = ruleParts(ctx, rule, () => bandsOfA(rule));
    charts +=
      parts.heading +
      valueChart(
        { id: chartId(page, 'rule'), title: `${rule.name} over time, with its bands`, desc },
        parts.bands,
        points,
        page.scale,
      );
  });
  return charts
    ? `<section aria-labelledby="rules-history"><h2 id="rules-history">Rule values over time</h2>${charts}</section>`
    : '';
}

function badgeSectionB(
  ctx: PagesContext,
  h: RepositoryHistory,
  ev: { scans: EvaluationB[]; latest: EvaluationB },
  b: BadgeB,
  index: number,
  page: PageShared,
): string {
  const id = b.def.id;
  const parts = badgeParts(ctx, id);
  const shown = shownStatus('B', b.status);
  const levels = table(
    `${esc(id)} levels`,
    ['Level', 'Granted', 'Checks'],
    b.entries.map((e) => [esc(e.level), e.granted ? 'yes' : 'no', numberText(e.criteria.length)]),
  );
  const rows = b.explained.criteria.map((c) => [
    ruleParts(ctx, c.rule, () => bandsOfB(c.rule)).link,
    esc(c.badgeLevel),
    cellWords(esc(thresholdText(c.rule))),
    // The contract's `<nil>` is for machines; a page says it in words, and why.
    cellWords(c.value === null ? 'not measured' : numberText(c.value)),
    statusWord(c.status),
    cellText(c.provenance.evidence),
    cellWords(esc(needForB(c) ?? '')),
  ]);
  const raise = raiseBadgeB(b);
  const raiseLine = raise
    ? `<p><strong>For ${esc(raise.target)}:</strong> ${raise.needs.map((n) => text(n)).join('; ')}.</p>`
    : '<p>Every level this badge defines is granted.</p>';
  // The chart's rungs are the words the badge shows: "none" below bronze, never "fail".
  const points = ev.scans.map((s) => ({
    t: s.timestamp,
    status: shownStatus('B', s.badges[index]!.status),
  }));
  const chart = statusChart(
    {
      id: chartId(page, 'badge'),
      title: `${id} level over time`,
      desc: historyDesc(
        page,
        points.map((p) => p.status),
      ),
    },
    SHOWN_LEVELS_B,
    points,
    page.scale,
  );
  return (
    `<section aria-labelledby="badge-${parts.escId}"><h2 id="badge-${parts.escId}">${parts.escId} ${badgeImage(page.api, parts, id, shown)}</h2>` +
    `<p>Status: ${statusWord(shown)}${b.status === 'fail' ? ' (no level granted)' : ''}. ${parts.meansLink}.</p>` +
    raiseLine +
    levels +
    table(
      `${esc(id)} checks of ${esc(b.explained.level)}, the highest level (a level also needs every check below it)`,
      ['Rule', 'Level', 'Threshold', 'Value', 'Status', 'Evidence', 'What it lacks'],
      rows,
    ) +
    `<h3>${esc(id)} history</h3>${chart}` +
    snippets(ctx, h.encoded, id) +
    `</section>`
  );
}

/** A Shape B rule's bands: fail below its threshold's minimum and above its maximum, pass between. */
function bandsOfB(rule: RuleB): ChartBand[] {
  const { min, max } = rule.threshold;
  const bands: ChartBand[] = [];
  const lo = min ?? 0;
  if (lo > 0) bands.push({ min: 0, max: lo - 1, label: 'fail', kind: 'fail' });
  bands.push({ min: lo, max: max ?? null, label: 'pass', kind: 'pass' });
  if (max !== undefined) bands.push({ min: max + 1, max: null, label: 'fail', kind: 'fail' });
  return bands;
}

function ruleChartsB(ctx: PagesContext, ev: { scans: EvaluationB[] }, page: PageShared): string {
  const t = ctx.thresholds;
  if (t.shape !== 'B') return '';
  const charts = t.t.rules
    .map((rule, i) => {
      if (rule.manual) return '';
      const points = ev.scans.map((s) => {
        const c = s.entries.flatMap((e) => e.criteria).find((x) => x.ruleIndex === i);
        return { t: s.timestamp, value: c ? c.value : null, status: c?.status ?? 'open' };
      });
      if (
        points.every((p) => p.value === null) &&
        !ev.scans.some((s) => s.entries.some((e) => e.criteria.some((c) => c.ruleIndex === i)))
      )
        return '';
      const parts = ruleParts(ctx, rule, () => bandsOfB(rule));
      const desc = historyDesc(
        page,
        points.map((p) =>
          p.value === null ? 'open (not measured)' : `${counted(p.value, rule.unit)} (${p.status})`,
        ),
      );
      return (
        parts.heading +
        valueChart(
          {
            id: chartId(page, 'rule'),
            title: `${rule.name} over time; passes ${thresholdText(rule)}`,
            desc,
          },
          parts.bands,
          points,
          page.scale,
        )
      );
    })
    .join('');
  return charts
    ? `<section aria-labelledby="rules-history"><h2 id="rules-history">Rule values over time</h2>${charts}</section>`
    : '';
}

/** The scans a repository page shows open; older ones fold into a <details> (no script needed). */
const SCANS_SHOWN = 10;

function scansTable(
  ctx: PagesContext,
  h: RepositoryHistory,
  statusesAt: (i: number) => string[],
  badgeIds: readonly string[],
  page: PageShared,
): string {
  const escIds = badgeIds.map((id) => badgeParts(ctx, id).escId);
  const rows = h.scans
    .map((s, i) => {
      // The scan's API directory, escaped: the time is digits, so the links extend it as they are.
      const at = `${page.api}at/${s.timestamp}/`;
      let files = `<ul class="files"><li><a href="${at}sarif">SARIF</a></li>`;
      for (const id of escIds)
        files += `<li><a href="${at}badges/${id}.svg">${id} badge</a>, <a href="${at}badges/${id}">${id} explanation</a></li>`;
      const time = page.times[i]!;
      return [
        `<time datetime="${time}">${time}</time>`,
        ...statusesAt(i).map(statusWord),
        `${files}</ul>`,
      ];
    })
    .reverse();
  const head = ['Scan time', ...escIds, 'Files'];
  const latest = table(
    'Scans, newest first, with the files of each',
    head,
    rows.slice(0, SCANS_SHOWN),
  );
  if (rows.length <= SCANS_SHOWN) return latest;
  const older = rows.length - SCANS_SHOWN;
  return (
    latest +
    `<details class="older-scans"><summary>${counted(older, 'older scan', 'older scans')}</summary>` +
    table(
      `The ${counted(older, 'older scan', 'older scans')}, newest first`,
      head,
      rows.slice(SCANS_SHOWN),
    ) +
    '</details>'
  );
}

/**
 * What the latest scan measured: "data as of 2026-08-22, commit 5c61e16 on master; scanned
 * 2026-11-27 (data 97 days old)", so a mirror that stopped updating shows as old data.
 */
function measuredLine(scan: ScanRecord): string {
  const r = scan.revision;
  const scanned = `scanned <time datetime="${isoTime(scan.timestamp)}">${isoDate(scan.timestamp)}</time>`;
  if (!r) return `<dt>Data as of</dt><dd>the scan names no commit it measured; ${scanned}</dd>`;
  const days = dataAgeDays(r, scan.timestamp);
  const branch = r.branch !== undefined ? ` on ${text(r.branch)}` : '';
  return (
    `<dt>Data as of</dt><dd><time datetime="${isoTime(r.committedAt)}">${isoDate(r.committedAt)}</time>, commit <code title="${esc(r.commit)}">${esc(r.commit.slice(0, 7))}</code>${branch}; ` +
    `${scanned} (data ${counted(days, 'day', 'days')} old)</dd>`
  );
}

/** What every part of one repository's page shares: its escaped API href, its scans' time scale and dates. */
interface PageShared {
  api: string;
  scale: TimeScale;
  /** The time of each scan (YYYY-MM-DDTHH:MM:SSZ), in scan order. */
  times: readonly string[];
  /** The date of each scan (YYYY-MM-DD), in scan order. */
  dates: readonly string[];
  /** Charts drawn so far on this page (their ids count them). */
  charts: number;
}

export function repositoryPage(
  ctx: PagesContext,
  h: RepositoryHistory,
  ev: RepositoryEvaluations,
): string {
  // Every chart spans the same scans (evaluations are per scan, in scan order).
  const times = ev.scans.map((s) => s.timestamp);
  // Each scan's time formatted once for the page (a build's scan times are mostly distinct).
  const isoTimes = times.map(isoTime);
  const page: PageShared = {
    api: apiHref(ctx, h.encoded),
    scale: timeScale(times),
    times: isoTimes,
    dates: isoTimes.map((t) => t.slice(0, 10)),
    charts: 0,
  };
  const badgeIds = ev.latest.badges.map((b) => b.def.id);
  let badges: string;
  let ruleCharts: string;
  let statusesAt: (i: number) => string[];
  if (ev.shape === 'A') {
    badges = '';
    for (let i = 0; i < ev.latest.badges.length; i++)
      badges += badgeSectionA(ctx, h, ev, ev.latest.badges[i]!, i, page);
    ruleCharts = ruleChartsA(ctx, ev, page);
    statusesAt = (i) => ev.scans[i]!.badges.map((b) => b.status);
  } else {
    badges = ev.latest.badges.map((b, i) => badgeSectionB(ctx, h, ev, b, i, page)).join('');
    ruleCharts = ruleChartsB(ctx, ev, page);
    statusesAt = (i) => ev.scans[i]!.badges.map((b) => shownStatus('B', b.status));
  }
  const latestStatuses =
    ev.shape === 'A'
      ? ev.latest.badges.map((b) => `${b.def.id} ${b.status}`)
      : ev.latest.badges.map((b) => `${b.def.id} ${shownStatus('B', b.status)}`);
  const repoLink = /^https?:\/\//i.test(h.repositoryUrl)
    ? `<a href="${externalHref(h.repositoryUrl)}" rel="nofollow noopener">${text(h.repositoryUrl)}</a>`
    : text(h.repositoryUrl);
  const name = projectName(h.repositoryUrl);
  const main =
    `<h1>${text(name)}</h1>` +
    `<p class="lead">Badges of ${repoLink}</p>` +
    `<dl class="facts"><dt>Last scan</dt><dd><time datetime="${isoTimes[isoTimes.length - 1]}">${page.dates[isoTimes.length - 1]}</time></dd>` +
    measuredLine(h.scans[h.scans.length - 1]!) +
    `<dt>Scans</dt><dd>${numberText(h.scans.length)}</dd>` +
    `<dt>Report</dt><dd><a href="${page.api}sarif">Download the latest SARIF report</a></dd>` +
    `<dt>Changes</dt><dd>${link(ctx, pagePaths.feed(h.encoded), 'Atom feed of badge status changes')}</dd></dl>` +
    readmeSnippet(ctx, h.encoded, badgeIds) +
    badges +
    ruleCharts +
    `<section aria-labelledby="scans"><h2 id="scans">Scans</h2>${scansTable(ctx, h, statusesAt, badgeIds, page)}</section>`;
  return renderPage(ctx.env, {
    title: `${name} · ${ctx.env.siteName}`,
    description: `Badges of ${h.repositoryUrl}: ${latestStatuses.join(', ')}.`,
    main,
    feed: pagePaths.feed(h.encoded),
  });
}
