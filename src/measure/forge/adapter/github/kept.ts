// What of each GitHub REST answer a later 304 hands on (ApiQuirks.conditional.kept): the fields
// the adapter reads, so a kept listing page holds a repository's eight fields instead of the
// ~11 KB of its minimal-repository, and a repository's kept lists their few fields a run,
// release or issue. A list not named here is kept whole. The per-repository shapes are what
// source.ts reads of each list (a field read there must be named here: the values after a
// 304 are compared with a first scan's in test/forge-conditional.test.ts).
import type { KeptShape } from '../../../http/conditional-answers.ts';
import { REPO_FIELDS } from './discover.ts';

const USER = { login: true, type: true } as const;

/** By the path below the API's base URL (GitHub Enterprise Server's /api/v3 taken off). */
const SHAPES: ReadonlyArray<[RegExp, KeptShape]> = [
  // A source's listing (discover.ts), and a repository's REST lookup (source.ts reads has_issues).
  [/^\/(?:orgs|users)\/[^/]+\/repos$/, REPO_FIELDS],
  [/^\/repositories$/, REPO_FIELDS],
  [/^\/repos\/[^/]+\/[^/]+$/, REPO_FIELDS],
  // source.ts `releases`/`packages`: drafts left out, the tag, when published, uploaded assets.
  [
    /^\/repos\/[^/]+\/[^/]+\/releases$/,
    { tag_name: true, draft: true, published_at: true, assets: { state: true, created_at: true } },
  ],
  // source.ts `runsIn`: the count (a capped list is split) and each run's event and outcome.
  [
    /^\/repos\/[^/]+\/[^/]+\/actions\/runs$/,
    { total_count: true, workflow_runs: { event: true, conclusion: true, created_at: true } },
  ],
  // source.ts `issuesByRest` (without a token): issues, their comments, a counted issue's events.
  // A pull request is told apart by the presence of `pull_request` alone.
  [
    /^\/repos\/[^/]+\/[^/]+\/issues$/,
    { number: true, pull_request: {}, created_at: true, user: USER, author_association: true },
  ],
  [
    /^\/repos\/[^/]+\/[^/]+\/issues\/comments$/,
    { issue_url: true, created_at: true, user: USER, author_association: true },
  ],
  [/^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/events$/, { event: true, actor: USER, created_at: true }],
];

/** The shape kept of an answer to `path`, or undefined to keep it whole. */
export function keptShape(path: string): KeptShape | undefined {
  return SHAPES.find(([pattern]) => pattern.test(path))?.[1];
}
