// Issue 35, item 1: a value nobody measured is `unknown`, never the project's `fail`. Built
// through the CLI from records written here: a null with its cause, a null without one, and
// rules the records lack. Expected texts and statuses are worked out by hand from the
// thresholds (config/thresholds-a.yaml) and the records below.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { sarifErrors } from './helpers/sarif.ts';
import { multitoolIssues, unexpectedInPlainReport } from './helpers/sarif-multitool.ts';
import { tempDir } from './helpers/tmp.ts';
import { axeViolations, browserOrSkip, COLOUR_RULES, launchBrowser } from './helpers/browser.ts';
import { serveDir } from './helpers/site-crawl.ts';

const dir = tempDir('unknown-');
const NOW = '1764300000';
// Not measured at all: reaction time null with the scanner's cause; policy and dependents absent.
const UNMEASURED = 'https://github.com/acme/unmeasured';
// A measured failure (reaction time 30 days) beside an unknown bus factor (null, no cause).
const FAILING = 'https://github.com/acme/failing';
const enc = (url: string) => encodeURIComponent(url);
const api = (out: string, url: string, rest: string) =>
  join(out, 'api/v1/repositories', enc(url), rest);
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

const CAUSE = 'GitHub API did not answer (2026-11-27)';
const store = join(dir, 'store');
const records = [
  {
    repositoryUrl: UNMEASURED,
    timestamp: 1764200000,
    values: { ISSUE_REACTION_TIME: null, BUS_FACTOR: 4 },
    evidence: { ISSUE_REACTION_TIME: CAUSE },
  },
  {
    repositoryUrl: FAILING,
    timestamp: 1764200000,
    values: { ISSUE_REACTION_TIME: 30, BUS_FACTOR: null, SECURITY_POLICY: true, DEPENDENTS: 5 },
  },
];

function siteConfig(name: string, extra: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `codeScanning: true\nthresholds:\n  A: ${join(ROOT, 'config/thresholds-a.yaml')}\n${extra}`,
  );
  return file;
}

async function build(name: string, extra = '', flags: string[] = []): Promise<string> {
  const out = join(dir, name);
  const r = await runCommand([
    'build',
    '--config',
    siteConfig(name, extra),
    '--store',
    store,
    '--out',
    out,
    '--now',
    NOW,
    ...flags,
  ]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return out;
}

/** A validator of one of the deployment's explanation schemas, from the site's openapi.json. */
function explanationSchema(site: string, name: string) {
  const doc = json(join(site, 'api/v1/openapi.json'));
  // A CommonJS module: under Node's ESM loader its class is the default export's `default`.
  const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi' });
  return { ajv, validate: ajv.compile({ $ref: `openapi#/components/schemas/${name}` }) };
}

let out: string;
beforeAll(async () => {
  mkdirSync(store, { recursive: true });
  writeFileSync(
    join(store, 'records.ndjson'),
    records.map((r) => JSON.stringify(r)).join('\n') + '\n',
  );
  // --strict: a null or a missing rule is no bad record; the build goes ahead.
  out = await build('a', '', ['--strict']);
}, 60_000);

describe('Shape A: unknown is not fail', () => {
  it('the explanation: badge and criterion unknown, value null, the cause in the description and the conclusion', () => {
    const maintenance = json(api(out, UNMEASURED, 'badges/MAINTENANCE'));
    expect(maintenance.badgeStatus).toBe('unknown');
    expect(maintenance.badgeExplanation.criteria[0]).toEqual({
      description: `Issue reaction time is unknown (not measured: ${CAUSE})`,
      ruleId: 'ISSUE_REACTION_TIME',
      value: null,
      status: 'unknown',
      // The evidence extension says the same (docs/reference/api.md#evidence-and-revision).
      provenance: { evidence: `not measured: ${CAUSE}`, scannedAt: 1764200000 },
    });
    expect(maintenance.badgeExplanation.conclusion).toBe(
      `MAINTENANCE is unknown: Issue reaction time is unknown (not measured: ${CAUSE}); Bus factor is 4 contributors (gold).`,
    );
    // A rule the record lacks: unknown, with words saying so.
    const security = json(api(out, UNMEASURED, 'badges/SECURITY'));
    expect(security.badgeStatus).toBe('unknown');
    expect(security.badgeExplanation.conclusion).toBe(
      'SECURITY is unknown: Security policy is unknown (not measured: the scan did not measure this rule).',
    );
    expect(json(api(out, UNMEASURED, 'badges/REUSED')).badgeStatus).toBe('unknown');
    // The per-scan file says the same.
    expect(json(api(out, UNMEASURED, 'at/1764200000/badges/MAINTENANCE')).badgeStatus).toBe(
      'unknown',
    );
  });

  it('a failing criterion beside an unknown one still fails the badge', () => {
    const maintenance = json(api(out, FAILING, 'badges/MAINTENANCE'));
    expect(maintenance.badgeStatus).toBe('fail');
    expect(maintenance.badgeExplanation.criteria.map((c: { status: string }) => c.status)).toEqual([
      'fail',
      'unknown',
    ]);
    expect(maintenance.badgeExplanation.conclusion).toBe(
      'MAINTENANCE is fail: Issue reaction time is 30 days (fail); Bus factor is unknown (not measured: the scan could not determine it).',
    );
    expect(json(api(out, FAILING, 'badges/SECURITY')).badgeStatus).toBe('gold');
  });

  it('the explanation validates against the deployment’s openapi.json', () => {
    const { ajv, validate } = explanationSchema(out, 'BadgeExplanationA');
    for (const url of [UNMEASURED, FAILING]) {
      for (const id of ['MAINTENANCE', 'SECURITY', 'REUSED'])
        expect(
          validate(json(api(out, url, `badges/${id}`))),
          `${url} ${id}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
    }
  });

  it('the badge SVG and the shields JSON are grey and say unknown, never fail’s red', () => {
    const svg = readFileSync(api(out, UNMEASURED, 'badges/MAINTENANCE.svg'), 'utf8');
    expect(svg).toContain('fill="#767676"');
    expect(svg).toMatch(/>unknown</);
    expect(svg).not.toContain('#e05d44');
    expect(svg).toContain('aria-label="MAINTENANCE: unknown"');
    expect(json(api(out, UNMEASURED, 'badges/MAINTENANCE.json'))).toEqual({
      schemaVersion: 1,
      label: 'MAINTENANCE',
      message: 'unknown',
      color: '767676',
      cacheSeconds: 300,
    });
    expect(readFileSync(api(out, FAILING, 'badges/MAINTENANCE.svg'), 'utf8')).toContain('#e05d44');
  });

  it('SARIF: an unknown result is kind open, level none, valid SARIF 2.1.0 (schema and Multitool); code scanning raises no alert for it', {
    timeout: 120_000,
  }, () => {
    const report = json(api(out, UNMEASURED, 'sarif'));
    const results = report.runs[0].results as Array<{
      ruleId: string;
      kind?: string;
      level: string;
      message: { text: string };
      properties: { status: string; value: unknown };
    }>;
    expect(
      results.map((r) => [r.ruleId, r.kind, r.level, r.properties.status, r.properties.value]),
    ).toEqual([
      ['ISSUE_REACTION_TIME', 'open', 'none', 'unknown', null],
      ['BUS_FACTOR', undefined, 'note', 'gold', 4],
      ['SECURITY_POLICY', 'open', 'none', 'unknown', null],
      ['DEPENDENTS', 'open', 'none', 'unknown', null],
    ]);
    expect(results[0]!.message.text).toBe(
      `Issue reaction time is unknown (not measured: ${CAUSE}).`,
    );
    expect(
      report.runs[0].properties.badges.map((b: { badgeStatus: string }) => b.badgeStatus),
    ).toEqual(['unknown', 'unknown', 'unknown']);
    const failing = json(api(out, FAILING, 'sarif'));
    expect(
      failing.runs[0].results.map((r: { kind?: string; level: string }) => [r.kind, r.level]),
    ).toEqual([
      [undefined, 'warning'],
      ['open', 'none'],
      [undefined, 'note'],
      [undefined, 'note'],
    ]);
    const scanningUnmeasured = json(api(out, UNMEASURED, 'code-scanning.sarif'));
    const scanningFailing = json(api(out, FAILING, 'code-scanning.sarif'));
    expect(scanningUnmeasured.runs[0].results).toEqual([]);
    expect(
      scanningFailing.runs[0].results.map((r: { ruleId: string; level: string }) => [
        r.ruleId,
        r.level,
      ]),
    ).toEqual([['ISSUE_REACTION_TIME', 'error']]);
    for (const r of [report, failing, scanningUnmeasured, scanningFailing])
      expect(sarifErrors(r)).toEqual([]);
    const [ofReport, ofFailing, ofScanning, ofScanningFailing] = multitoolIssues(
      report,
      failing,
      scanningUnmeasured,
      scanningFailing,
    );
    // The plain report is the documented shape, not GitHub's (no locations): its SARIF rules only.
    expect(unexpectedInPlainReport(ofReport!)).toEqual([]);
    expect(unexpectedInPlainReport(ofFailing!)).toEqual([]);
    // The code-scanning files: no error or warning under the GitHub rules either.
    expect(ofScanning).toEqual([]);
    expect(ofScanningFailing).toEqual([]);
  });

  it('the repository page words it unknown with the cause; the badge page’s legend and the home counts name unknown', () => {
    const page = readFileSync(join(out, 'repositories', enc(UNMEASURED), 'index.html'), 'utf8');
    expect(page).toContain('<p>Status: <span class="status st-unknown">unknown</span>.');
    expect(page).toContain(`not measured: ${CAUSE}`);
    expect(page).toContain('The badge is unknown, not failed');
    expect(page).not.toContain('st-fail">fail</span>.');
    // The status chart has a rung of its own for unknown.
    expect(page).toMatch(/text-anchor="end">unknown<\/text>/);
    const badgePage = readFileSync(join(out, 'badges/MAINTENANCE/index.html'), 'utf8');
    expect(badgePage).toContain(
      'A rule nobody measured (no value in the scan) is <span class="status st-unknown">unknown</span>, never a band',
    );
    const home = readFileSync(join(out, 'index.html'), 'utf8');
    expect(home).toContain('<th scope="col">fail</th><th scope="col">unknown</th>');
    expect(home).toContain('<a href="/groups/-/MAINTENANCE/#status-unknown">1</a>');
    const rulePage = readFileSync(join(out, 'rules/BUS_FACTOR/index.html'), 'utf8');
    expect(rulePage).toContain(
      'A scan without a value for it leaves it <span class="status st-unknown">unknown</span>, never in a band.',
    );
    expect(readFileSync(join(out, 'rules/SECURITY_POLICY/index.html'), 'utf8')).toContain(
      'a scan without an answer leaves it <span class="status st-unknown">unknown</span>.',
    );
    const feed = readFileSync(join(out, 'repositories', enc(UNMEASURED), 'feed.atom'), 'utf8');
    expect(feed).toContain('<title>MAINTENANCE is unknown (first scan)</title>');
    // A feed reader shows the summary alone: it says why, as the page does.
    expect(feed).toContain(
      `<summary>MAINTENANCE is unknown (first scan) with the scan of 2025-11-26T23:33:20Z. Issue reaction time has no value (not measured: ${CAUSE}).</summary>`,
    );
    const css = readFileSync(join(ROOT, 'templates/site.css'), 'utf8');
    expect(css).toContain('.st-unknown{color:var(--unknown)}');
    // The home page's bars of unknown have a fill of their own (an SVG rect without one is black).
    expect(home).toMatch(/<rect class="band-unknown" [^>]*width="[1-9]/);
    expect(css).toContain('.chart .band-unknown,');
  });
});

describe('a partial count whose forge call failed never fails the repository', () => {
  // RELEASES keeps git's tags when the forge's release list fails (docs/reference/scan.md): a
  // count that may miss releases made on the forge alone. Below the threshold it proves
  // nothing; at or above it, it stands (more releases only raise it).
  const NOT_READ = 'forge releases not read: GitHub API: 503 server error';
  const PARTIAL = 'https://github.com/acme/partial';
  const ENOUGH = 'https://github.com/acme/enough';
  const lines = [
    {
      repositoryUrl: PARTIAL,
      timestamp: 1764200000,
      values: { RELEASES: { events: [] } },
      evidence: { RELEASES: `0 tags dated in the 12 months to 2025-11-26; ${NOT_READ}` },
      failed: ['RELEASES'],
    },
    {
      repositoryUrl: ENOUGH,
      timestamp: 1764200000,
      values: { RELEASES: { events: [1760000000] } },
      evidence: { RELEASES: `1 tag dated in the 12 months to 2025-11-26; ${NOT_READ}` },
      failed: ['RELEASES'],
    },
  ];

  it('Shape A: unknown with the cause below the threshold, the band above it; no alert', async () => {
    const partialStore = join(dir, 'store-partial');
    mkdirSync(partialStore, { recursive: true });
    writeFileSync(
      join(partialStore, 'r.ndjson'),
      lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
    );
    const cfg = join(dir, 'partial.yaml');
    writeFileSync(
      cfg,
      `codeScanning: true\nthresholds:\n  A: ${join(ROOT, 'examples/scan/thresholds-git.yaml')}\n`,
    );
    const partialOut = join(dir, 'partial');
    const r = await runCommand([
      'build',
      '--config',
      cfg,
      '--store',
      partialStore,
      '--out',
      partialOut,
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(0);
    const releases = json(api(partialOut, PARTIAL, 'badges/RELEASES'));
    expect(releases.badgeStatus).toBe('unknown');
    expect(releases.badgeExplanation.criteria[0]).toMatchObject({
      value: null,
      status: 'unknown',
      description: `Releases is unknown (not measured: 0 tags dated in the 12 months to 2025-11-26; ${NOT_READ})`,
    });
    expect(
      json(api(partialOut, PARTIAL, 'code-scanning.sarif')).runs[0].results.map(
        (x: { ruleId: string }) => x.ruleId,
      ),
    ).not.toContain('RELEASES');
    expect(json(api(partialOut, ENOUGH, 'badges/RELEASES')).badgeStatus).toBe('bronze');
  });

  it('Shape B: open below the threshold, pass above it', async () => {
    const outB = await buildB('b-partial', lines);
    const gold = (url: string) =>
      json(api(outB, url, 'badges/MAINTAINED')).badgeExplanation.criteria.find(
        (c: { ruleId: string }) => c.ruleId === 'RELEASES',
      );
    expect(gold(PARTIAL)).toMatchObject({ value: '<nil>', status: 'open' });
    expect(gold(PARTIAL).provenance.evidence).toBe(
      `not measured: 0 tags dated in the 12 months to 2025-11-26; ${NOT_READ}`,
    );
    expect(gold(ENOUGH)).toMatchObject({ value: '1', status: 'pass' });
  });
});

describe('a cause is data: escaped wherever it is shown', () => {
  it('markup in the record’s evidence reaches pages as text and SARIF as JSON text', async () => {
    const hostileStore = join(dir, 'store-hostile');
    mkdirSync(hostileStore, { recursive: true });
    const cause = '<img src=x onerror=alert(1)> & "quoted"';
    writeFileSync(
      join(hostileStore, 'r.ndjson'),
      `${JSON.stringify({ repositoryUrl: UNMEASURED, timestamp: 1764200000, values: { ISSUE_REACTION_TIME: null, BUS_FACTOR: 4 }, evidence: { ISSUE_REACTION_TIME: cause } })}\n`,
    );
    const hostileOut = join(dir, 'hostile');
    const r = await runCommand([
      'build',
      '--config',
      siteConfig('hostile', ''),
      '--store',
      hostileStore,
      '--out',
      hostileOut,
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(0);
    const page = readFileSync(
      join(hostileOut, 'repositories', enc(UNMEASURED), 'index.html'),
      'utf8',
    );
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;');
    const report = json(api(hostileOut, UNMEASURED, 'sarif'));
    expect(report.runs[0].results[0].message.text).toBe(
      `Issue reaction time is unknown (not measured: ${cause}).`,
    );
    const feed = readFileSync(
      join(hostileOut, 'repositories', enc(UNMEASURED), 'feed.atom'),
      'utf8',
    );
    expect(feed).not.toContain('<img src=x');
    expect(feed).toContain(
      '(not measured: &lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;)',
    );
  });
});

describe('plan names unknown among the status changes', () => {
  it('a later scan that measures what was unknown shows as unknown → its band', async () => {
    const measured = join(dir, 'store-measured');
    mkdirSync(measured, { recursive: true });
    const values = { ISSUE_REACTION_TIME: 3, BUS_FACTOR: 4, SECURITY_POLICY: true, DEPENDENTS: 5 };
    writeFileSync(
      join(measured, 'r.ndjson'),
      `${JSON.stringify({ repositoryUrl: UNMEASURED, timestamp: 1764200000, values })}\n`,
    );
    const r = await runCommand([
      'plan',
      '--config',
      join(dir, 'a.yaml'),
      '--store',
      measured,
      '--out',
      out,
      '--now',
      NOW,
    ]);
    expect(r.stderr).toBe('');
    // 3: changes to publish.
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      'MAINTENANCE\n  unknown → silver: 1 repository (latest; e.g. https://github.com/acme/unmeasured)',
    );
    expect(r.stdout).toContain('SECURITY\n  unknown → gold: 1 repository (latest;');
  });
});

/** A Shape B site (the default thresholds) built from `lines`, in `dir/name`. */
async function buildB(name: string, lines: object[]): Promise<string> {
  const outB = join(dir, name);
  const cfg = join(dir, `${name}.yaml`);
  writeFileSync(cfg, `shape: B\nthresholds:\n  B: ${join(ROOT, 'config/thresholds-b.yaml')}\n`);
  const storeB = join(dir, `store-${name}`);
  mkdirSync(storeB, { recursive: true });
  writeFileSync(join(storeB, 'r.ndjson'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const r = await runCommand([
    'build',
    '--config',
    cfg,
    '--store',
    storeB,
    '--out',
    outB,
    '--now',
    NOW,
  ]);
  expect(r.code).toBe(0);
  return outB;
}

describe('Shape B keeps the contract: no value is open', () => {
  it('a null and a missing rule are <nil> and open, never unknown', async () => {
    const outB = await buildB('b', [
      { repositoryUrl: UNMEASURED, timestamp: 1764200000, values: { COMMITS: null } },
    ]);
    const report = json(api(outB, UNMEASURED, 'sarif'));
    const kinds = new Set(report.runs[0].results.map((x: { kind: string }) => x.kind));
    expect(kinds).toEqual(new Set(['open']));
    const criteria = json(api(outB, UNMEASURED, 'badges/MAINTAINED')).badgeExplanation
      .criteria as Array<{
      status: string;
      value: string;
    }>;
    expect(criteria.map((c) => [c.status, c.value])).toEqual(criteria.map(() => ['open', '<nil>']));
    expect(JSON.stringify(report)).not.toContain('unknown');
    // The value charts' text alternative says what the table says: not measured, open.
    const page = readFileSync(join(outB, 'repositories', enc(UNMEASURED), 'index.html'), 'utf8');
    const descs = [...page.matchAll(/<desc id="rule-[^"]*">([^<]*)<\/desc>/g)].map((m) => m[1]);
    expect(descs.length).toBeGreaterThan(0);
    expect(descs).toEqual(descs.map(() => '2025-11-26 open (not measured).'));
  });

  it('an explanation whose lowest level is only undecided is unknown, never fail; a measured failure still fails', async () => {
    const outB = await buildB('b-explained', [
      // Nothing measured: every level of MAINTAINED and REUSED waits on a value nobody has.
      {
        repositoryUrl: UNMEASURED,
        timestamp: 1764200000,
        values: { COMMITS: null },
        evidence: { COMMITS: CAUSE },
      },
      // COMMITS measured 0 (below BRONZE's 5) beside an undecided PACKAGES.
      {
        repositoryUrl: FAILING,
        timestamp: 1764200000,
        values: { COMMITS: 0, PACKAGES: null, CI_PIPELINE: 3 },
      },
    ]);
    const maintained = json(api(outB, UNMEASURED, 'badges/MAINTAINED'));
    expect(maintained.badgeStatus).toBe('unknown');
    // The conclusion is read by people: the cause, never `<nil>`.
    expect(maintained.badgeExplanation.conclusion).toContain(
      `Commits: at least 5 commits in the last 6 months is open (not measured: ${CAUSE})`,
    );
    expect(maintained.badgeExplanation.conclusion).not.toContain('<nil>');
    expect(json(api(outB, UNMEASURED, 'badges/REUSED')).badgeStatus).toBe('unknown');
    // An undecided manual check is no failure of the repository either.
    expect(json(api(outB, UNMEASURED, 'badges/OPEN-SOURCE')).badgeStatus).toBe('unknown');
    expect(json(api(outB, FAILING, 'badges/MAINTAINED')).badgeStatus).toBe('fail');
    expect(json(api(outB, FAILING, 'badges/MAINTAINED')).badgeExplanation.conclusion).toContain(
      'Commits: at least 5 commits in the last 6 months (0) is fail',
    );
    expect(json(api(outB, FAILING, 'badges/REUSED')).badgeStatus).toBe('unknown');
    const { ajv, validate } = explanationSchema(outB, 'BadgeExplanationB');
    for (const url of [UNMEASURED, FAILING]) {
      for (const id of ['MAINTAINED', 'REUSED', 'OPEN-SOURCE'])
        expect(
          validate(json(api(outB, url, `badges/${id}`))),
          `${url} ${id}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
    }
    // The images keep saying "none" in its grey: no level is granted.
    expect(json(api(outB, UNMEASURED, 'badges/MAINTAINED.json'))).toMatchObject({
      message: 'none',
      color: 'bbbbbb',
    });
    const feed = readFileSync(join(outB, 'repositories', enc(UNMEASURED), 'feed.atom'), 'utf8');
    expect(feed).toContain(
      `<summary>MAINTAINED is none (first scan) with the scan of 2025-11-26T23:33:20Z. Commits has no value (not measured: ${CAUSE}).</summary>`,
    );
    // A measured failure needs no such words.
    expect(readFileSync(join(outB, 'repositories', enc(FAILING), 'feed.atom'), 'utf8')).toContain(
      '<summary>MAINTAINED is none (first scan) with the scan of 2025-11-26T23:33:20Z.</summary>',
    );
  });
});

describe('unknownAs: clients that accept only the contract’s five statuses', () => {
  it('publishes unknown as the configured status everywhere, the words still saying it was not measured', async () => {
    const mapped = await build('mapped', 'unknownAs: fail\n');
    const explanation = json(api(mapped, UNMEASURED, 'badges/MAINTENANCE'));
    expect(explanation.badgeStatus).toBe('fail');
    expect(explanation.badgeExplanation.criteria[0].status).toBe('fail');
    expect(explanation.badgeExplanation.criteria[0].description).toBe(
      `Issue reaction time is unknown (not measured: ${CAUSE})`,
    );
    const report = json(api(mapped, UNMEASURED, 'sarif'));
    // The contract's levels: warning for a status that is not met, and no `kind: open`.
    expect(report.runs[0].results[0]).toMatchObject({
      level: 'warning',
      properties: { status: 'fail', value: null },
    });
    expect(report.runs[0].results[0].kind).toBeUndefined();
    expect(sarifErrors(report)).toEqual([]);
    expect(JSON.stringify(report)).not.toMatch(/"(status|badgeStatus)":"unknown"/);
    expect(json(api(mapped, UNMEASURED, 'badges/MAINTENANCE.json'))).toMatchObject({
      message: 'fail',
      color: 'e05d44',
    });
    // Still no code-scanning alert for a value nobody measured.
    expect(json(api(mapped, UNMEASURED, 'code-scanning.sarif')).runs[0].results).toEqual([]);
    // gold for the unknown criterion: the badge is what was measured.
    const gold = await build('mapped-gold', 'unknownAs: gold\n');
    expect(json(api(gold, UNMEASURED, 'badges/MAINTENANCE')).badgeStatus).toBe('gold');
    expect(json(api(gold, FAILING, 'badges/MAINTENANCE')).badgeStatus).toBe('fail');
  });
});

describe.skipIf(!browserOrSkip('unknown-status'))('unknown in headless Chromium', () => {
  it('axe-core finds no violation on the pages that show unknown, in both schemes', {
    timeout: 120_000,
  }, async () => {
    const serving = await serveDir(out);
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ bypassCSP: true });
      for (const scheme of ['light', 'dark'] as const) {
        const page = await context.newPage();
        await page.emulateMedia({ colorScheme: scheme });
        for (const path of [
          '/',
          `/repositories/${enc(UNMEASURED)}/`,
          '/badges/MAINTENANCE/',
          '/rules/BUS_FACTOR/',
        ]) {
          await page.goto(`${serving.url}${path}`);
          // The home page after a first build draws unknown in its charts (its recent changes sum
          // first scans up in a line); the other pages spell it out too.
          expect(await page.locator('.st-unknown, .band-unknown').count(), path).toBeGreaterThan(0);
          const violations = await axeViolations(
            page,
            scheme === 'dark' ? { runOnly: { type: 'rule', values: COLOUR_RULES } } : {},
          );
          expect(violations, `${scheme} ${path}`).toEqual([]);
        }
        await page.close();
      }
    } finally {
      await browser.close();
      await serving.close();
    }
  });
});
