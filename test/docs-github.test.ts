// docs/guides/github.md, the code-scanning workflow's download step as written (bash -e, as
// GitHub runs a step), and with the guide's jq line in place of the Python one: each must
// fetch the report of a repository whose path has capitals, from a served site.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, childEnv, ROOT, spawnChecked } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { startServeChild, type ServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const guide = readFileSync(join(ROOT, 'docs/guides/github.md'), 'utf8');
const workflow = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((m) => parse(m[1]!))
  .find((y) => y?.name === 'badgepress findings');
const download = (workflow.jobs.upload.steps as Array<{ name?: string; run?: string }>).find(
  (s) => s.name === 'Download the latest report',
)!.run!;
const jqLine = /```sh\n(repo=\$\(jq .*\))\n```/.exec(guide)![1]!;
const URL = 'https://github.com/Acme/Widget';

const dir = tempDir();
let serving: ServeChild;
let report: string;

beforeAll(async () => {
  mkdirSync(join(dir, 'store'));
  writeFileSync(
    join(dir, 'store/widget.ndjson'),
    `${JSON.stringify({ repositoryUrl: URL, timestamp: 1763596800, values: { ISSUE_REACTION_TIME: 30, BUS_FACTOR: 1, SECURITY_POLICY: false, DEPENDENTS: 3 } })}\n`,
  );
  writeFileSync(
    join(dir, 'badgepress.yaml'),
    `shape: A\nstore: store\nout: site\ncodeScanning: true\nthresholds: {A: ${join(ROOT, 'config/thresholds-a.yaml')}}\n`,
  );
  const built = await runCommand([
    'build',
    '--config',
    join(dir, 'badgepress.yaml'),
    '--now',
    '1764000000',
  ]);
  expect(built.code, built.stderr).toBe(0);
  report = readFileSync(
    join(dir, 'site/api/v1/repositories', encodeURIComponent(URL), 'code-scanning.sarif'),
    'utf8',
  );
  serving = await startServeChild(
    CLI[0],
    [...CLI.slice(1), 'serve', '--dir', join(dir, 'site'), '--port', '0'],
    {
      env: childEnv(),
    },
  );
}, 60_000);

afterAll(async () => {
  await serving?.stop();
});

/** The step in a fresh working directory, GITHUB_REPOSITORY set as GitHub sets it, the site's address for the example one. */
function run(script: string, name: string): string {
  const work = join(dir, name);
  mkdirSync(work);
  const r = spawnChecked(
    'bash',
    ['-e', '-c', script.replaceAll('https://badges.example.org', serving.url)],
    {
      cwd: work,
      env: childEnv({ GITHUB_REPOSITORY: 'Acme/Widget' }),
      timeout: 30_000,
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(join(work, 'badgepress.sarif'), 'utf8');
}

describe('docs/guides/github.md: the download step', () => {
  it('as written (python3) fetches the report of Acme/Widget, capitals kept', () => {
    expect(download.split('\n')[0]).toMatch(/^repo=\$\(python3 /);
    expect(run(download, 'python')).toBe(report);
  });

  it('with the jq line instead fetches the same report', () => {
    const lines = download.split('\n');
    expect(run([jqLine, ...lines.slice(1)].join('\n'), 'jq')).toBe(report);
  });
});
