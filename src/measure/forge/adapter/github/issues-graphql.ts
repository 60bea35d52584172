// The issue reaction time's issues (RULE.issueReactionTime) through GitHub's GraphQL API: a
// page of 100 issues per query, each with its first 100 timeline items of the kinds that can
// be a reaction (comments and the triage actions labelled, assigned, milestoned, closed),
// where the REST API took one request per issue for its events. Each query costs 1 point:
// 1 + 100 connections asked, divided by 100 and rounded (GraphQL rate limits, "Calculating a
// rate limit score"). The values are the REST logic's: see docs/reference/scan.md, the issue
// reaction time.
import type { Actor, ForgeIssue } from '../../core/rules.ts';
import { unixOf } from '../../core/rules.ts';
import { type BotTest, loginIsBot } from '../../../bots.ts';

/** Timeline item types that can be a reaction: a comment, or a triage action on the issue. */
const REACTION_ITEM_TYPES = [
  'ISSUE_COMMENT',
  'LABELED_EVENT',
  'ASSIGNED_EVENT',
  'MILESTONED_EVENT',
  'CLOSED_EVENT',
] as const;

const TIMELINE = `timelineItems(first: 100, after: $timelineAfter, itemTypes: [${REACTION_ITEM_TYPES.join(', ')}]) {
        pageInfo { hasNextPage endCursor }
        nodes {
          __typename
          ... on IssueComment { createdAt authorAssociation author { __typename login } }
          ... on LabeledEvent { createdAt actor { __typename login } }
          ... on AssignedEvent { createdAt actor { __typename login } }
          ... on MilestonedEvent { createdAt actor { __typename login } }
          ... on ClosedEvent { createdAt actor { __typename login } }
        }
      }`;

/**
 * One page of issues updated since $since, oldest first, each with its reaction items; with
 * whether issues are on, so the first page is the repository's lookup too (a scalar field adds
 * no point), and how many releases it has (a connection of 1 more request: 102 / 100 rounds
 * to 1 point still), so a repository without any needs no REST release list. A renamed or
 * transferred repository is followed (`followRenames`, true by default).
 */
export const ISSUES_QUERY = `query ($owner: String!, $name: String!, $since: DateTime!, $after: String, $timelineAfter: String) {
  repository(owner: $owner, name: $name) {
    hasIssuesEnabled
    releases(first: 1) { totalCount }
    issues(first: 100, after: $after, filterBy: { since: $since }, orderBy: { field: CREATED_AT, direction: ASC }) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id
        number
        createdAt
        authorAssociation
        author { __typename login }
        ${TIMELINE}
      }
    }
  }
  rateLimit { cost remaining }
}`;

/** The next page of one issue's reaction items (an issue with more than 100 of them). */
export const TIMELINE_QUERY = `query ($id: ID!, $timelineAfter: String) {
  node(id: $id) {
    ... on Issue {
      ${TIMELINE}
    }
  }
  rateLimit { cost remaining }
}`;

interface GqlActor {
  __typename: string;
  login: string;
}
interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}
interface TimelineItem {
  __typename: string;
  createdAt?: string;
  authorAssociation?: string;
  author?: GqlActor | null;
  actor?: GqlActor | null;
}
interface Timeline {
  pageInfo: PageInfo;
  nodes: TimelineItem[];
}
export interface IssuesPage {
  repository: {
    hasIssuesEnabled?: boolean;
    releases?: { totalCount?: number };
    issues: {
      pageInfo: PageInfo;
      nodes: Array<{
        id: string;
        number: number;
        createdAt: string;
        authorAssociation: string;
        author: GqlActor | null;
        timelineItems: Timeline;
      }>;
    };
  } | null;
}
interface TimelinePage {
  node: { timelineItems?: Timeline } | null;
}

/** Maintainers on GitHub: the association GitHub itself reports for an issue or comment. */
export const MAINTAINER_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/**
 * An actor as the REST API names it: a GitHub App's bot is "name[bot]" there and "name" of
 * type Bot here; a deleted account (null) is nobody's, read as a bot as REST reads it. A bot
 * by GitHub's sign (type Bot) or by the scan's test on the login, as the REST path decides.
 */
function actorOf(
  who: GqlActor | null | undefined,
  test: BotTest | undefined,
  association?: string,
): Actor {
  const login = who
    ? who.__typename === 'Bot' && !who.login.endsWith('[bot]')
      ? `${who.login}[bot]`
      : who.login
    : '';
  const bot = !who || who.__typename === 'Bot' || loginIsBot(test, login);
  return {
    login,
    bot,
    maintainer: association !== undefined && MAINTAINER_ASSOCIATIONS.has(association),
  };
}

/** The reactions a page of timeline items holds: comments by anyone, triage actions by maintainers. */
function reactionsOf(
  items: readonly TimelineItem[],
  test: BotTest | undefined,
): ForgeIssue['reactions'] {
  return items.flatMap((item) => {
    const at = unixOf(item.createdAt);
    if (item.__typename === 'IssueComment')
      return [{ at, actor: actorOf(item.author, test, item.authorAssociation) }];
    // Only people with triage access or more can take these actions on others' issues.
    if ('actor' in item) return [{ at, actor: { ...actorOf(item.actor, test), maintainer: true } }];
    return [];
  });
}

/** The variables of ISSUES_QUERY for the page after `after` (null: the first). */
export const issuesVariables = (
  owner: string,
  name: string,
  sinceIso: string,
  after: string | null,
) => ({
  owner,
  name,
  since: sinceIso,
  after,
  timelineAfter: null,
});

/**
 * Issues opened after `since` with their reactions, through `ask` (one GraphQL query each);
 * `isBot` the scan's bot test on authors and reactors, `malformed` names an answer off the
 * schema, `tooMany` a list longer than `maxPages` pages; `firstPage` the first page when the
 * repository's lookup asked it already.
 */
export async function issuesByGraphql(
  ask: <T>(query: string, variables: Record<string, unknown>) => Promise<T>,
  owner: string,
  name: string,
  since: number,
  sinceIso: string,
  isBot: BotTest | undefined,
  malformed: (what: string) => Error,
  maxPages: number,
  tooMany: () => Error,
  firstPage?: IssuesPage,
): Promise<ForgeIssue[]> {
  const issues: ForgeIssue[] = [];
  const more: Array<[ForgeIssue, string, string]> = [];
  for (let after: string | null = null, pages = 1; ; pages++) {
    if (pages > maxPages) throw tooMany();
    const page: IssuesPage =
      after === null && firstPage
        ? firstPage
        : await ask<IssuesPage>(ISSUES_QUERY, issuesVariables(owner, name, sinceIso, after));
    const list = page?.repository?.issues;
    if (!list || !Array.isArray(list.nodes))
      throw malformed(`a page of issues of ${owner}/${name}`);
    for (const i of list.nodes) {
      const createdAt = unixOf(i.createdAt);
      if (!(createdAt > since)) continue;
      const issue: ForgeIssue = {
        createdAt,
        author: actorOf(i.author, isBot, i.authorAssociation),
        reactions: reactionsOf(i.timelineItems.nodes, isBot),
      };
      issues.push(issue);
      if (i.timelineItems.pageInfo.hasNextPage && i.timelineItems.pageInfo.endCursor)
        more.push([issue, i.id, i.timelineItems.pageInfo.endCursor]);
    }
    if (!list.pageInfo.hasNextPage || !list.pageInfo.endCursor || list.pageInfo.endCursor === after)
      break;
    after = list.pageInfo.endCursor;
  }
  // The reactions past an issue's first 100 items, only for the issues that count.
  for (const [issue, id, cursor] of more) {
    if (issue.author.bot || issue.author.maintainer) continue;
    for (let after: string | null = cursor; after !== null; ) {
      const page: TimelinePage = await ask<TimelinePage>(TIMELINE_QUERY, {
        id,
        timelineAfter: after,
      });
      const timeline = page?.node?.timelineItems;
      if (!timeline || !Array.isArray(timeline.nodes))
        throw malformed(`a page of the timeline of ${owner}/${name}`);
      issue.reactions.push(...reactionsOf(timeline.nodes, isBot));
      after =
        timeline.pageInfo.hasNextPage && timeline.pageInfo.endCursor !== after
          ? timeline.pageInfo.endCursor
          : null;
    }
  }
  return issues;
}
