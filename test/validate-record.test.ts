// src/load/validate-record.ts: one parsed item checked against the record schema and the active
// rules, giving the record (URL canonical, unknown rules set aside) or one reason naming the key.
import { describe, expect, it } from 'vitest';
import { checkRecord, valueProblem } from '../src/load/validate-record.ts';
import type { RuleCatalog, ValueKind } from '../src/load/types.ts';

const KINDS: Record<string, ValueKind> = {
  BUS_FACTOR: 'numeric',
  COMMITS: 'numeric',
  SECURITY_POLICY: 'boolean',
  'MANUAL/REVIEW': 'manual',
};
const catalog: RuleCatalog = (id) => KINDS[id];
const URL = 'https://github.com/acme/widget';
const check = (value: unknown, schemes?: string[]) =>
  checkRecord(value, 'store/a.ndjson:3', catalog, undefined, schemes);
const reason = (value: unknown, schemes?: string[]) => {
  const r = check(value, schemes);
  return r.ok ? `accepted: ${JSON.stringify(r.record)}` : r.reason;
};

describe('checkRecord: records it accepts', () => {
  it('a scan: URL made canonical, values and evidence of unknown rules dropped and named', () => {
    expect(
      check({
        repositoryUrl: 'HTTPS://GitHub.com/acme/widget',
        timestamp: 1763000000,
        values: {
          BUS_FACTOR: 3,
          SECURITY_POLICY: null,
          COMMITS: { events: [1, 2] },
          EXTRA: 'anything',
        },
        evidence: { BUS_FACTOR: 'three people', EXTRA: 'x' },
      }),
    ).toEqual({
      ok: true,
      record: {
        kind: 'scan',
        repositoryUrl: URL,
        timestamp: 1763000000,
        values: { BUS_FACTOR: 3, SECURITY_POLICY: null, COMMITS: { events: [1, 2] } },
        evidence: { BUS_FACTOR: 'three people' },
        source: 'store/a.ndjson:3',
      },
      unknownRules: ['EXTRA'],
    });
  });

  it('a grant: by and note kept; a grant of a rule the thresholds do not define is named', () => {
    expect(
      check({
        kind: 'grant',
        repositoryUrl: URL,
        timestamp: 5,
        ruleId: 'MANUAL/REVIEW',
        granted: true,
        by: 'ana',
        note: 'reviewed',
      }),
    ).toEqual({
      ok: true,
      record: {
        kind: 'grant',
        repositoryUrl: URL,
        ruleId: 'MANUAL/REVIEW',
        granted: true,
        timestamp: 5,
        source: 'store/a.ndjson:3',
        by: 'ana',
        note: 'reviewed',
      },
      unknownRules: [],
    });
    expect(
      check({
        kind: 'grant',
        repositoryUrl: URL,
        timestamp: 5,
        ruleId: 'MANUAL/OTHER',
        granted: false,
      }),
    ).toMatchObject({
      ok: true,
      unknownRules: ['MANUAL/OTHER'],
    });
  });
});

describe('checkRecord: the reason a record is refused', () => {
  it('names the repository URL first, and a scheme the site does not accept', () => {
    expect(reason([1, 2])).toBe('a record must be a JSON object');
    expect(reason({ repositoryUrl: 'not a url', timestamp: 1, values: {} })).toMatch(
      /^repositoryUrl "not a url" is not of the form <scheme>:\/\/<host>\/<path>/,
    );
    expect(
      reason({
        repositoryUrl: 'ssh://git.example/acme/w',
        timestamp: 1,
        values: { BUS_FACTOR: -1 },
      }),
    ).toBe(
      'repositoryUrl uses the scheme "ssh", which this site does not accept; accepted: http, https (repositoryUrlSchemes: in the site config)',
    );
    expect(
      check({ repositoryUrl: 'ssh://git.example/acme/w', timestamp: 1, values: {} }, ['ssh']),
    ).toMatchObject({
      ok: true,
    });
  });

  it('names the key of a value of the wrong kind for its rule', () => {
    expect(reason({ repositoryUrl: URL, timestamp: 1, values: { BUS_FACTOR: -1 } })).toBe(
      'values.BUS_FACTOR: expected a number ≥ 0, null or {"events":[unix seconds…]} for a measured rule, got -1',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 1, values: { SECURITY_POLICY: 'yes' } })).toBe(
      'values.SECURITY_POLICY: expected true, false or null for a yes/no rule, got "yes"',
    );
    expect(
      reason({ repositoryUrl: URL, timestamp: 1, values: { COMMITS: { events: [1, 2.5] } } }),
    ).toBe(
      'values.COMMITS.events[1]: an event time must be whole Unix seconds from 0 to 253402300799 (the end of year 9999), got 2.5',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 1, values: { 'MANUAL/REVIEW': true } })).toBe(
      'values.MANUAL/REVIEW: manual checks are decided by grant records or decision files, not by scan values',
    );
  });

  it('names the key the schema refuses', () => {
    expect(reason({ repositoryUrl: URL, values: {} })).toBe(
      'record: missing required key "timestamp"',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 1 })).toBe(
      'record: missing required key "values"',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 1, values: {}, extra: 1 })).toBe(
      'record: unknown key "extra"',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 1.5, values: {} })).toBe(
      'timestamp must be an integer number of Unix seconds',
    );
    expect(reason({ repositoryUrl: URL, timestamp: -1, values: {} })).toBe(
      'timestamp: must not be negative',
    );
    expect(reason({ repositoryUrl: URL, timestamp: 253402300800, values: {} })).toBe(
      'timestamp must be whole Unix seconds from 0 to 253402300799 (the end of year 9999), got 253402300800',
    );
    expect(
      reason({ repositoryUrl: URL, timestamp: 1, values: {}, evidence: { BUS_FACTOR: 3 } }),
    ).toBe('evidence.BUS_FACTOR: must be string');
    expect(reason({ kind: 'vote', repositoryUrl: URL, timestamp: 1, values: {} })).toBe(
      'kind: must be one of "scan", "grant"',
    );
    expect(
      reason({ kind: 'grant', repositoryUrl: URL, timestamp: 1, ruleId: 'REVIEW', granted: true }),
    ).toBe('ruleId of a grant must start with MANUAL/');
    expect(
      reason({ kind: 'grant', repositoryUrl: URL, timestamp: 1, ruleId: 'MANUAL/REVIEW' }),
    ).toBe('record: missing required key "granted"');
  });
});

describe('valueProblem', () => {
  it('accepts null for every kind but manual, and the shapes each kind allows', () => {
    for (const ok of [null, 0, 7.5, { events: [] }, { events: [0, 253402300799] }])
      expect(valueProblem('numeric', ok), JSON.stringify(ok)).toBeUndefined();
    for (const ok of [null, true, false]) expect(valueProblem('boolean', ok)).toBeUndefined();
    expect(valueProblem('manual', null)).toBeUndefined();
  });

  it('says what a bad value is, quoting it in one short line', () => {
    expect(valueProblem('numeric', Number.POSITIVE_INFINITY)).toEqual({
      message:
        'not a finite number: got Infinity (out of range, as 1e400 or .inf is); write a number ≥ 0 or null',
    });
    expect(valueProblem('numeric', Number.NaN)).toEqual({
      message: 'not a finite number: got NaN (.nan); write a number ≥ 0 or null',
    });
    expect(valueProblem('numeric', { events: [], since: 1 })).toEqual({
      message: 'unknown key "since"; a count holds only "events"',
    });
    expect(valueProblem('numeric', { events: [1, 253402300800] })).toEqual({
      at: '.events[1]',
      message:
        'an event time must be whole Unix seconds from 0 to 253402300799 (the end of year 9999), got 253402300800',
    });
    // A value quoted in up to 60 characters is whole; a longer one is cut to 57 and an ellipsis.
    expect(valueProblem('boolean', 'x'.repeat(58))).toEqual({
      message: `expected true, false or null for a yes/no rule, got "${'x'.repeat(58)}"`,
    });
    expect(valueProblem('boolean', 'x'.repeat(59))).toEqual({
      message: `expected true, false or null for a yes/no rule, got "${'x'.repeat(56)}…`,
    });
    // A value nested too deeply for JSON.stringify is named by its kind.
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(valueProblem('boolean', deep)).toEqual({
      message: 'expected true, false or null for a yes/no rule, got a deeply nested array',
    });
  });
});
