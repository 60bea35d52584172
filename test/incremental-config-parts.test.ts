// A config change redoes only the files it can change (issue H): the configuration is split
// into parts by what each file depends on (src/incremental/parts.ts); a repository whose
// records did not change renders, compares and writes only the files of the changed parts.
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../src/config/resolve.ts';
import { configParts, changedParts, partOfKey, partOfResource } from '../src/incremental/parts.ts';
import {
  atKey,
  EXTRA_BADGE_STYLES,
  expiredAtKey,
  indexKey,
  latestKey,
  repositoryPrefix,
  type Resource,
} from '../src/model/layout.ts';
import { readState, serializeState } from '../src/incremental/state.ts';
import { planCommand } from '../src/commands/plan.ts';
import type { PlanReport } from '../src/publish/plan.ts';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { ROOT } from './helpers/cli.ts';
import { buildIncrementally } from './helpers/incremental.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = 1_763_600_000;
const THRESHOLDS = readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8');
const SITE = 'thresholds: { A: thresholds.yaml }\nshieldsEndpoint: true\ncodeScanning: true\n';
const REUSED_BANDS =
  '{ min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }';

/** A config directory: site.yaml (the default's settings plus `extra`) and its thresholds. */
function config(
  name: string,
  thresholds: string,
  extra = 'styles: [flat, plastic, social]\n',
): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'thresholds.yaml'), thresholds);
  writeFileSync(join(d, 'site.yaml'), SITE + extra);
  return join(d, 'site.yaml');
}

function edit(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`edit: ${String(from)} not found`);
  return out;
}

/** A generated store whose files look settled: one written in the last seconds is re-read every build. */
function storeOf(name: string, repos: number, scans: number, seed: number): string {
  const out = join(dir, name);
  generateStore({ repos, scans, out, seed });
  for (const n of readdirSync(out)) utimesSync(join(out, n), 1_700_000_000, 1_700_000_000);
  return out;
}

async function partsFor(cfg: string) {
  return configParts(await resolveConfig(cfg, { store: dir, out: dir }));
}

describe('config parts', () => {
  it('every key a renderer writes maps back to the part of its resource; others to none', () => {
    const resources: Resource[] = [
      { kind: 'sarif' },
      { kind: 'svg', badgeId: 'B_1-x' },
      { kind: 'explanation', badgeId: 'B_1-x' },
      ...EXTRA_BADGE_STYLES.map((style) => ({ kind: 'styled' as const, badgeId: 'B_1-x', style })),
      { kind: 'shields', badgeId: 'B_1-x' },
      { kind: 'code-scanning' },
    ];
    const prefix = repositoryPrefix('https%3A%2F%2Fgithub.com%2Fo%2Fr');
    const rel = (key: string) => key.slice(prefix.length);
    const enc = 'https%3A%2F%2Fgithub.com%2Fo%2Fr';
    for (const r of resources) {
      expect(partOfKey(rel(latestKey(enc, r)))).toBe(partOfResource(r));
      if (r.kind === 'sarif' || r.kind === 'svg' || r.kind === 'explanation') {
        expect(partOfKey(rel(atKey(enc, 1700000000, r)))).toBe(partOfResource(r));
        expect(partOfKey(rel(expiredAtKey(enc, 1700000000, r)))).toBe(partOfResource(r));
      }
    }
    expect(partOfKey(rel(indexKey(enc)))).toBe('index');
    for (const stray of [
      'at/1/index.json',
      'at/1/code-scanning.sarif',
      'at/1/badges/X.json',
      'badges/X.svg.bak',
      'badges/X/y',
      'notes.txt',
      'at/x/sarif',
    ])
      expect(partOfKey(stray), stray).toBeUndefined();
  });

  it('reformatting the YAML changes no part; each edit changes exactly the parts whose files it reaches', async () => {
    const base = await partsFor(config('base', THRESHOLDS));
    const reformatted = await partsFor(
      config(
        'reformatted',
        edit(
          THRESHOLDS,
          '{ min: 0, max: 1, status: gold }',
          '{ status: gold,   max: 1, min: 0 }',
        ).replace(/^# .*\n/gm, ''),
        'styles:\n  - flat\n  - plastic\n  - social\n',
      ),
    );
    expect(reformatted).toEqual(base);
    const diff = async (name: string, thresholds: string, extra?: string) => {
      const p = await partsFor(config(name, thresholds, extra));
      return {
        global: p.global !== base.global,
        parts: [...changedParts(base.parts, p.parts)].sort(),
      };
    };
    const both = ['code-scanning', 'pages', 'sarif'];
    // One badge's bands: its badge, and every report that lists the rule.
    expect(
      await diff(
        'bands',
        edit(THRESHOLDS, REUSED_BANDS, REUSED_BANDS.replace('19', '24').replace('20', '25')),
      ),
    ).toEqual({
      global: false,
      parts: ['badge:REUSED', ...both],
    });
    // One rule's help text: the reports and the badge that uses the rule.
    expect(
      await diff(
        'help',
        edit(THRESHOLDS, 'help: Add a SECURITY.md', 'help: Please add a SECURITY.md'),
      ),
    ).toEqual({
      global: false,
      parts: ['badge:SECURITY', ...both],
    });
    // The style list and the colours: every badge's files and the pages, no report; styles
    // besides flat also the index, which names them (a ?style= it lacks is "not rendered").
    const badges = ['badge:MAINTENANCE', 'badge:REUSED', 'badge:SECURITY', 'index', 'pages'];
    expect(await diff('styles', THRESHOLDS, 'styles: [flat, social]\n')).toEqual({
      global: false,
      parts: badges,
    });
    expect(
      await diff(
        'colours',
        THRESHOLDS,
        'styles: [flat, plastic, social]\ncolors: { gold: "#00aa00" }\n',
      ),
    ).toEqual({
      global: false,
      parts: badges.filter((p) => p !== 'index'),
    });
    // Not attributed (cache ages, expiry, which rules exist): everything.
    expect(
      (
        await diff(
          'cache',
          THRESHOLDS,
          'styles: [flat, plastic, social]\ncache: { latestMaxAge: 60 }\n',
        )
      ).global,
    ).toBe(true);
    // unknownAs changes statuses in every file: everything is redone.
    expect(
      (await diff('unknown-as', THRESHOLDS, 'styles: [flat, plastic, social]\nunknownAs: fail\n'))
        .global,
    ).toBe(true);
    expect(
      (
        await diff(
          'kind',
          edit(THRESHOLDS, 'unit: dependents', 'unit: dependents\n    timeRangeInMonths: 3'),
        )
      ).global,
    ).toBe(false);
  });
});

describe('state format', () => {
  it('a state without config parts (format 1, or 2 without parts) is not used: a full build', async () => {
    const state = {
      code: 'c',
      config: 'g',
      parts: { sarif: 's' },
      files: new Map(),
      repositories: new Map(),
    };
    const text = serializeState(state);
    const parse = (t: string) => readState(t.split('\n'), new Map());
    const read = (await parse(text))!;
    expect({
      ...read,
      files: new Map(read.files),
      repositories: new Map(read.repositories),
    }).toEqual(state);
    const [head, ...rest] = text.split('\n');
    const { parts: _parts, ...old } = JSON.parse(head!) as Record<string, unknown>;
    expect(
      await parse([JSON.stringify({ ...old, format: 1 }), ...rest].join('\n')),
    ).toBeUndefined();
    expect(await parse([JSON.stringify(old), ...rest].join('\n'))).toBeUndefined();
  });
});

describe('site-wide pages', () => {
  it('follow a config change even when no repository is redone (empty store)', async () => {
    const store = join(dir, 'store-empty');
    mkdirSync(store, { recursive: true });
    const out = join(dir, 'out-empty');
    await buildIncrementally({
      flags: { config: config('e-before', THRESHOLDS), store, out },
      now: NOW,
      pages: true,
    });
    const help = config(
      'e-after',
      edit(THRESHOLDS, 'help: Add a SECURITY.md', 'help: Please add a SECURITY.md'),
    );
    const { summary } = await buildIncrementally({
      flags: { config: help, store, out },
      now: NOW,
      pages: true,
    });
    expect(summary.written).toBeGreaterThan(0);
    await buildIncrementally({
      flags: { config: help, store, out: join(dir, 'clean-empty') },
      now: NOW,
      force: true,
      pages: true,
    });
    const published = (t: Map<string, Buffer>) =>
      new Map([...t].filter(([k]) => !k.startsWith('.badgepress/state/')));
    expect(published(readTree(out))).toEqual(published(readTree(join(dir, 'clean-empty'))));
  });
});

describe('a threshold change on one badge', () => {
  it('writes exactly the files whose bytes change, renders no file of the other badges, and plan says the same', async () => {
    const store = storeOf('store', 20, 3, 5);
    const out = join(dir, 'out');
    const before = config('before', THRESHOLDS);
    const after = config(
      'after',
      edit(
        THRESHOLDS,
        REUSED_BANDS,
        '{ min: 5, max: 7, status: silver }\n      - { min: 8, max: null, status: gold }',
      ),
    );
    await buildIncrementally({ flags: { config: before, store, out }, now: NOW, pages: true });
    const old = readTree(out);

    // plan, in-process, from the same state: what the build below will do.
    const printed: string[] = [];
    const write = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk) => (printed.push(String(chunk)), true));
    try {
      await planCommand([
        '--config',
        after,
        '--store',
        store,
        '--out',
        out,
        '--now',
        String(NOW),
        '--json',
      ]);
    } finally {
      write.mockRestore();
    }
    const plan = JSON.parse(printed.join('')) as PlanReport;

    const put: string[] = [];
    const { summary } = await buildIncrementally({
      flags: { config: after, store, out },
      now: NOW,
      pages: true,
      onPut: (k) => put.push(k),
    });
    const now = readTree(out);
    const published = (k: string) => !k.startsWith('.badgepress/state/');
    const changed = [...now]
      .filter(([k, v]) => published(k) && !old.get(k)?.equals(v))
      .map(([k]) => k);
    expect(changed.length).toBeGreaterThan(0);
    expect(summary.written).toBe(changed.length);
    expect(summary.removed).toBe(0);

    // Rendered (handed to the sink): reports and REUSED's files only, of every repository.
    const api = put.filter((k) => k.startsWith('api/v1/repositories/'));
    expect(api.filter((k) => /\/badges\/(MAINTENANCE|SECURITY)/.test(k))).toEqual([]);
    expect(
      api.filter(
        (k) => !/\/(sarif|code-scanning\.sarif|badges\/REUSED(\.[a-z-]+)?(\.svg|\.json)?)$/.test(k),
      ),
    ).toEqual([]);
    expect(api.filter((k) => k.endsWith('/badges/REUSED.plastic.svg')).length).toBe(20);

    // The same bytes as a clean build, and every file counted once, written or unchanged.
    const clean = await buildIncrementally({
      flags: { config: after, store, out: join(dir, 'clean') },
      now: NOW,
      force: true,
      pages: true,
    });
    const cleanTree = readTree(join(dir, 'clean'));
    expect(new Map([...now].filter(([k]) => published(k)))).toEqual(
      new Map([...cleanTree].filter(([k]) => published(k))),
    );
    expect(summary.written + summary.unchanged).toBe(clean.summary.written);

    // plan: the same counts as the build, pages included, and api/v1/openapi.json, which the
    // CLI's build writes and this in-process one does not (so plan sees it absent).
    expect({
      written: plan.added + plan.changed,
      unchanged: plan.unchanged,
      removed: plan.removed,
    }).toEqual({
      written: summary.written + 1,
      unchanged: summary.unchanged,
      removed: 0,
    });
  }, 120_000);

  it('a badge removed: --prune deletes its files and keeps every file not rendered', async () => {
    const store = storeOf('store-prune', 8, 2, 6);
    const out = join(dir, 'out-prune');
    const without = edit(THRESHOLDS, /  - id: SECURITY\n(    .*\n)+/, '');
    await buildIncrementally({
      flags: { config: config('p-before', THRESHOLDS), store, out },
      now: NOW,
    });
    const put: string[] = [];
    const { summary } = await buildIncrementally({
      flags: { config: config('p-after', without), store, out },
      now: NOW,
      onPut: (k) => put.push(k),
    });
    expect(summary.removed).toBeGreaterThan(0);
    expect(put.filter((k) => /\/badges\/MAINTENANCE/.test(k) && k.startsWith('api/'))).toEqual([]);
    await buildIncrementally({
      flags: { config: config('p-after', without), store, out: join(dir, 'clean-prune') },
      now: NOW,
      force: true,
    });
    const published = (t: Map<string, Buffer>) =>
      new Map(
        [...t].filter(
          ([k]) => !k.startsWith('.badgepress/state/') && !k.startsWith('badges/SECURITY/'),
        ),
      );
    expect(published(readTree(out))).toEqual(published(readTree(join(dir, 'clean-prune'))));
  }, 120_000);
});
