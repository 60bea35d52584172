// The GitHub adapter's GraphQL queries against GitHub's published schema (issue 33): every field,
// argument, enum value and fragment must exist there as written. Needs the devDependency
// @octokit/graphql-schema (which brings graphql); loaded by name so the type check does not
// depend on it.
import { describe, expect, it } from 'vitest';
import {
  ISSUES_QUERY,
  TIMELINE_QUERY,
} from '../src/measure/forge/adapter/github/issues-graphql.ts';

const SCHEMA_PACKAGE = '@octokit/graphql-schema';
type Validate = (query: string) => ReadonlyArray<{ message: string }>;
const { validate } = (await import(SCHEMA_PACKAGE)) as { validate: Validate };

describe("the GitHub adapter's GraphQL queries", () => {
  it.each([
    ['issues with their reaction items', ISSUES_QUERY],
    ["an issue's further reaction items", TIMELINE_QUERY],
  ])('%s: valid against the published schema', (_name, query) => {
    expect(validate(query).map((e) => e.message)).toEqual([]);
  });

  it('the check is live: a field GitHub does not have is refused', () => {
    expect(
      validate(ISSUES_QUERY.replace('authorAssociation', 'authorAssoc')).length,
    ).toBeGreaterThan(0);
  });
});
