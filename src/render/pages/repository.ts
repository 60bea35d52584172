// One page per repository (repositories/<enc>/index.html): latest badges with their criteria
// and what would raise them, history charts, embed snippets and the table of scans.
import type { RuleA } from '../../config/types.ts';
import type { BadgeA, CriterionA, EvaluationA } from '../../evaluate/shape-a.ts';
import { thresholdText, type BadgeB, type EvaluationB } from '../../evaluate/shape-b.ts';
import type { RepositoryHistory } from '../../load/types.ts';
import { API_PREFIX } from '../../model/layout.ts';
import { statusChart, valueChart, type ChartBand } from './chart.ts';
import { pagePaths, shownStatus, STATUS_LEVELS, type PagesContext, type RepositoryEvaluations } from './context.ts';
import { esc, externalHref, href, isoDate, isoTime, renderPage, statusWord, table, text } from './html.ts';
import { raiseBadgeA, raiseBadgeB, raiseCriterionA, needForB } from './raise.ts';

function apiPath(encoded: string, rest: string): string {
  return `${API_PREFIX}${encoded}/${rest}`;
}

function link(ctx: PagesContext, path: string, label: string): string {
  return `<a href="${href(ctx.env, path)}">${label}</a>`;
}

function badgeImage(ctx: PagesContext, encoded: string, badgeId: string, status: string): string {
  return `<img class="badge-img" src="${href(ctx.env, apiPath(encoded, `badges/${badgeId}.svg`))}" alt="${esc(`${badgeId}: ${status}`)}">`;
}

function snippets(ctx: PagesContext, encoded: string, badgeId: string): string {
  const img = `${ctx.site.baseUrl}/${apiPath(encoded, `badges/${badgeId}.svg`)}`;
  const page = `${ctx.site.baseUrl}/${pagePaths.repository(encoded)}`;
  const forms: Array<[string, string]> = [
    ['Markdown', `[![${badgeId}](${img})](${page})`],
    ['HTML', `<a href="${page}"><img src="${img}" alt="${badgeId} badge"></a>`],
    ['reStructuredText', `.. image:: ${img}\n   :alt: ${badgeId} badge\n   :target: ${page}`],
    ['AsciiDoc', `image:${img}[${badgeId} badge,link=${page}]`],
  ];
  const blocks = forms.map(([name, code]) => `<div class="snippet" data-copy><div class="snippet-head"><span>${name}</span></div><pre><code>${esc(code)}</code></pre></div>`);
  return `<details><summary>Embed the ${esc(badgeId)} badge</summary>${blocks.join('')}</details>`;
}

function ruleLink(ctx: PagesContext, ruleId: string, name: string): string {
  return link(ctx, pagePaths.rule(ruleId), text(name));
}

function valueText(c: CriterionA): string {
  if (c.value === null) return 'not determined';
  if (c.rule.type === 'boolean') return c.value ? 'present' : 'absent';
  return `${c.value}${c.rule.unit ? ` ${esc(c.rule.unit)}` : ''}`;
}

function bandText(c: CriterionA): string {
  if (c.rule.type === 'boolean') return `present: ${c.rule.positiveStatus}; absent: ${c.rule.negativeStatus}`;
  if (!c.range) return '';
  return `${c.range.min}..${c.range.max ?? '∞'}${c.rule.unit ? ` ${esc(c.rule.unit)}` : ''}`;
}

let chartCounter = 0;

function chartId(prefix: string): string {
  return `${prefix}-${++chartCounter}`;
}

function bandsOfA(rule: RuleA): ChartBand[] {
  return rule.type === 'numeric' ? rule.thresholds.map((b) => ({ min: b.min, max: b.max, label: b.status, kind: b.status })) : [];
}

function historyDesc(points: Array<{ t: number; label: string }>): string {
  const shown = points.slice(-12);
  const head = points.length > shown.length ? `The last ${shown.length} of ${points.length} scans: ` : '';
  return `${head}${shown.map((p) => `${isoDate(p.t)} ${p.label}`).join('; ')}.`;
}

function badgeSectionA(ctx: PagesContext, h: RepositoryHistory, ev: { scans: EvaluationA[]; latest: EvaluationA }, b: BadgeA, index: number): string {
  const id = b.def.id;
  const rows = b.criteria.map((c) => [
    ruleLink(ctx, c.rule.id, c.rule.name),
    valueText(c),
    statusWord(c.status),
    bandText(c),
    (() => {
      const raise = raiseCriterionA(c);
      return raise.length === 0 ? (c.status === 'gold' ? 'already gold' : '') : `<ul class="raise">${raise.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`;
    })(),
  ]);
  const raise = raiseBadgeA(b);
  const raiseLine =
    b.status === 'expired'
      ? `<p>The badge has expired because its last scan is more than ${ctx.site.expireAfterDays} days old; a new scan restores it.</p>`
      : raise && raise.needs.length > 0
        ? `<p><strong>For ${esc(raise.target)}:</strong> ${raise.needs.map((n) => esc(n)).join('; ')}.</p>`
        : b.status === 'gold'
          ? '<p>This is the highest status.</p>'
          : '';
  const points = ev.scans.map((s) => ({ t: s.timestamp, status: s.badges[index]!.status }));
  const chart = statusChart(
    { id: chartId('badge'), title: `${id} status over time`, desc: historyDesc(points.map((p) => ({ t: p.t, label: p.status }))) },
    STATUS_LEVELS,
    points,
  );
  return (
    `<section aria-labelledby="badge-${esc(id)}"><h2 id="badge-${esc(id)}">${esc(id)} ${badgeImage(ctx, h.encoded, id, b.status)}</h2>` +
    `<p>Status: ${statusWord(b.status)}. ${link(ctx, pagePaths.badge(id), `What ${esc(id)} means`)}.</p>` +
    expiryLine(ctx, ev.latest.timestamp, b.status) +
    raiseLine +
    table(`${esc(id)} criteria (the badge takes the worst status among them)`, ['Rule', 'Value', 'Status', 'Band', 'What would raise it'], rows) +
    `<h3>${esc(id)} history</h3>${chart}` +
    snippets(ctx, h.encoded, id) +
    `</section>`
  );
}

function expiryLine(ctx: PagesContext, scanTime: number, status: string): string {
  const days = ctx.site.expireAfterDays;
  if (ctx.site.shape !== 'A' || days === null) return '';
  const at = scanTime + days * 86400;
  return status === 'expired' ? `<p>Expired on ${isoDate(at)}.</p>` : `<p>Expires on ${isoDate(at)} unless a newer scan arrives.</p>`;
}

function ruleChartsA(ctx: PagesContext, ev: { scans: EvaluationA[] }): string {
  const t = ctx.thresholds;
  if (t.shape !== 'A') return '';
  const charts = t.t.rules
    .map((rule, i) => {
      if (rule.type !== 'numeric') return '';
      const points = ev.scans.map((s) => ({ t: s.timestamp, value: s.criteria[i]!.value as number | null }));
      const unit = rule.unit ? ` ${rule.unit}` : '';
      // Scan times are unique per repository (the loader drops duplicates): scan j is point j.
      const desc = historyDesc(points.map((p, j) => ({ t: p.t, label: p.value === null ? 'not determined' : `${p.value}${unit} (${ev.scans[j]!.criteria[i]!.status})` })));
      return `<h3>${esc(rule.name)}</h3>` + valueChart({ id: chartId('rule'), title: `${rule.name} over time, with its bands`, desc }, bandsOfA(rule), points);
    })
    .join('');
  return charts ? `<section aria-labelledby="rules-history"><h2 id="rules-history">Rule values over time</h2>${charts}</section>` : '';
}

function badgeSectionB(ctx: PagesContext, h: RepositoryHistory, ev: { scans: EvaluationB[]; latest: EvaluationB }, b: BadgeB, index: number): string {
  const id = b.def.id;
  const shown = shownStatus('B', b.status);
  const levels = table(
    `${esc(id)} levels`,
    ['Level', 'Granted', 'Checks'],
    b.entries.map((e) => [esc(e.level), e.granted ? 'yes' : 'no', esc(String(e.criteria.length))]),
  );
  const rows = b.explained.criteria.map((c) => [
    ruleLink(ctx, c.rule.id, c.rule.name),
    esc(c.badgeLevel),
    esc(thresholdText(c.rule)),
    esc(c.valueText),
    statusWord(c.status),
    c.evidence !== undefined ? text(c.evidence) : '',
    esc(needForB(c) ?? ''),
  ]);
  const raise = raiseBadgeB(b);
  const raiseLine = raise
    ? `<p><strong>For ${esc(raise.target)}:</strong> ${raise.needs.map((n) => text(n)).join('; ')}.</p>`
    : '<p>Every level this badge defines is granted.</p>';
  const points = ev.scans.map((s) => ({ t: s.timestamp, status: s.badges[index]!.status }));
  const chart = statusChart(
    { id: chartId('badge'), title: `${id} level over time`, desc: historyDesc(points.map((p) => ({ t: p.t, label: shownStatus('B', p.status) }))) },
    STATUS_LEVELS,
    points,
  );
  return (
    `<section aria-labelledby="badge-${esc(id)}"><h2 id="badge-${esc(id)}">${esc(id)} ${badgeImage(ctx, h.encoded, id, shown)}</h2>` +
    `<p>Status: ${statusWord(shown)}${b.status === 'fail' ? ' (no level granted)' : ''}. ${link(ctx, pagePaths.badge(id), `What ${esc(id)} means`)}.</p>` +
    raiseLine +
    levels +
    table(`${esc(id)} checks of ${esc(b.explained.level)}, the highest level (a level also needs every check below it)`, ['Rule', 'Level', 'Threshold', 'Value', 'Status', 'Evidence', 'What it lacks'], rows) +
    `<h3>${esc(id)} history</h3>${chart}` +
    snippets(ctx, h.encoded, id) +
    `</section>`
  );
}

function ruleChartsB(ctx: PagesContext, ev: { scans: EvaluationB[] }): string {
  const t = ctx.thresholds;
  if (t.shape !== 'B') return '';
  const charts = t.t.rules
    .map((rule, i) => {
      if (rule.manual) return '';
      const points = ev.scans.map((s) => {
        const c = s.entries.flatMap((e) => e.criteria).find((x) => x.ruleIndex === i);
        return { t: s.timestamp, value: c ? c.value : null, status: c?.status ?? 'open' };
      });
      if (points.every((p) => p.value === null) && !ev.scans.some((s) => s.entries.some((e) => e.criteria.some((c) => c.ruleIndex === i)))) return '';
      const { min, max } = rule.threshold;
      const bands: ChartBand[] = [];
      const lo = min ?? 0;
      if (lo > 0) bands.push({ min: 0, max: lo - 1, label: 'fail', kind: 'fail' });
      bands.push({ min: lo, max: max ?? null, label: 'pass', kind: 'pass' });
      if (max !== undefined) bands.push({ min: max + 1, max: null, label: 'fail', kind: 'fail' });
      const desc = historyDesc(points.map((p) => ({ t: p.t, label: p.value === null ? 'not determined' : `${p.value} ${rule.unit} (${p.status})` })));
      return `<h3>${esc(rule.name)}</h3>` + valueChart({ id: chartId('rule'), title: `${rule.name} over time; passes ${thresholdText(rule)}`, desc }, bands, points);
    })
    .join('');
  return charts ? `<section aria-labelledby="rules-history"><h2 id="rules-history">Rule values over time</h2>${charts}</section>` : '';
}

function scansTable(ctx: PagesContext, h: RepositoryHistory, statusesAt: (i: number) => string[], badgeIds: readonly string[]): string {
  const rows = h.scans
    .map((s, i) => {
      const at = `at/${s.timestamp}/`;
      const files = [link(ctx, apiPath(h.encoded, `${at}sarif`), 'SARIF'), ...badgeIds.map((id) => `${link(ctx, apiPath(h.encoded, `${at}badges/${id}.svg`), `${esc(id)} badge`)} ${link(ctx, apiPath(h.encoded, `${at}badges/${id}`), `${esc(id)} explanation`)}`)];
      return [`<time datetime="${isoTime(s.timestamp)}">${isoTime(s.timestamp)}</time>`, ...statusesAt(i).map((st) => esc(st)), files.join(', ')];
    })
    .reverse();
  return table('Scans, newest first, with the files of each', ['Scan time', ...badgeIds.map((id) => esc(id)), 'Files'], rows);
}

export function repositoryPage(ctx: PagesContext, h: RepositoryHistory, ev: RepositoryEvaluations): string {
  chartCounter = 0;
  const last = h.scans[h.scans.length - 1]!;
  const badgeIds = ev.latest.badges.map((b) => b.def.id);
  let badges: string;
  let ruleCharts: string;
  let statusesAt: (i: number) => string[];
  if (ev.shape === 'A') {
    badges = ev.latest.badges.map((b, i) => badgeSectionA(ctx, h, ev, b, i)).join('');
    ruleCharts = ruleChartsA(ctx, ev);
    statusesAt = (i) => ev.scans[i]!.badges.map((b) => b.status);
  } else {
    badges = ev.latest.badges.map((b, i) => badgeSectionB(ctx, h, ev, b, i)).join('');
    ruleCharts = ruleChartsB(ctx, ev);
    statusesAt = (i) => ev.scans[i]!.badges.map((b) => shownStatus('B', b.status));
  }
  const latestStatuses = ev.shape === 'A' ? ev.latest.badges.map((b) => `${b.def.id} ${b.status}`) : ev.latest.badges.map((b) => `${b.def.id} ${shownStatus('B', b.status)}`);
  const repoLink = /^https?:\/\//i.test(h.repositoryUrl) ? `<a href="${externalHref(h.repositoryUrl)}" rel="nofollow noopener">${text(h.repositoryUrl)}</a>` : text(h.repositoryUrl);
  const main =
    `<h1>${text(h.repositoryUrl)}</h1>` +
    `<p class="lead">Badges of ${repoLink}</p>` +
    `<dl class="facts"><dt>Last scan</dt><dd><time datetime="${isoTime(last.timestamp)}">${isoDate(last.timestamp)}</time></dd>` +
    `<dt>Scans</dt><dd>${h.scans.length}</dd>` +
    `<dt>Report</dt><dd>${link(ctx, apiPath(h.encoded, 'sarif'), 'Download the latest SARIF report')}</dd>` +
    `<dt>Changes</dt><dd>${link(ctx, pagePaths.feed(h.encoded), 'Atom feed of badge status changes')}</dd></dl>` +
    badges +
    ruleCharts +
    `<section aria-labelledby="scans"><h2 id="scans">Scans</h2>${scansTable(ctx, h, statusesAt, badgeIds)}</section>`;
  return renderPage(ctx.env, {
    title: `${h.repositoryUrl} · ${ctx.env.siteName}`,
    description: `Badges of ${h.repositoryUrl}: ${latestStatuses.join(', ')}.`,
    main,
    feed: pagePaths.feed(h.encoded),
  });
}
