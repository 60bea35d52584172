// `badgepress plan --format markdown`: the plan as GitHub-flavoured Markdown tables, for a
// pull-request comment or $GITHUB_STEP_SUMMARY. Badge ids, statuses and repository URLs come
// from data, so every one is escaped: emphasis, code, links, HTML (< &), @mentions, #refs
// and $math$ are neutralised, a pipe cannot end a table cell, a newline cannot end a row.
import { cachedUrlsLine, resendLine, type PlanReport, type TransitionScope } from './plan.ts';
import { counted } from '../model/plural.ts';

const SCOPE_LABEL: Record<TransitionScope, string> = {
  latest: 'latest',
  scan: 'per scan',
  'expired-scan': 'expired variant per scan',
};

/** Text safe in a Markdown table cell: shown literally, on one line. */
export function markdownCell(s: string): string {
  return s
    .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    .replace(/[\\`*_[\]|~<>@#$]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;');
}

export function formatPlanMarkdown(p: PlanReport): string {
  const lines = [
    `### badgepress plan`,
    '',
    `${counted(p.repositories, 'repository', 'repositories')}, ${counted(p.scans, 'scan', 'scans')}.`,
    '',
  ];
  if (p.transitions.length === 0) lines.push('No badge changes status.', '');
  else {
    lines.push(
      '| Badge | From | To | Where | Repositories | Scans | For example |',
      '|---|---|---|---|--:|--:|---|',
    );
    for (const t of p.transitions) {
      const cells = [
        t.badgeId,
        t.from,
        t.to,
        SCOPE_LABEL[t.scope],
        String(t.repositories),
        t.scans === undefined ? '' : String(t.scans),
        t.examples.map(markdownCell).join('<br>'),
      ];
      lines.push(`| ${cells.map((c, i) => (i === 6 ? c : markdownCell(c))).join(' | ')} |`);
    }
    lines.push('');
  }
  lines.push(
    '| Files | Count |',
    '|---|--:|',
    `| to add | ${p.added} |`,
    `| to change | ${p.changed} |`,
    `| to remove (with --prune) | ${p.removed} |`,
    `| unchanged | ${p.unchanged} |`,
  );
  if (p.removedExamples.length > 0)
    lines.push(
      '',
      `\`--prune\` would remove e.g. ${p.removedExamples.map(markdownCell).join(', ')}`,
    );
  // Counts and numbers only: nothing data-driven to escape.
  const cached = cachedUrlsLine(p.cachedUrls);
  if (cached)
    lines.push(
      '',
      cached
        .replace('?timestamp=', '`?timestamp=`')
        .replace('cache.latestMaxAge', '`cache.latestMaxAge`'),
    );
  if (p.resendsUnchanged) lines.push('', resendLine(p));
  return lines.join('\n');
}
