// `badgepress discover`: the repositories of organisations, users, groups or instances, in
// the repos-file form (one URL a line, sorted), to review, diff or keep; what moved or left
// since the repos file given with --repos goes to stderr.
import { readFile } from 'node:fs/promises';
import { parseFlags } from './args.ts';
import { UsageError } from '../errors.ts';
import { loadSettings, SOURCE_DEFAULTS } from '../config/load.ts';
import type { SourceSetting } from '../config/types.ts';
import { parseTargets } from '../measure/targets.ts';
import { discoverSources, listingProgress, sourceWarnings } from '../measure/forge/sources.ts';
import { progressShown } from './progress.ts';

export const DISCOVER_USAGE = `usage: badgepress discover [URL…] [--config FILE] [--repos FILE] [--json]

  URL             an organisation's, user's, group's or instance's web address (https://github.com/acme,
                  https://gitlab.example.org/group, https://codeberg.org/forge, https://forge.example/);
                  public repositories only, neither archived, forks nor mirrors. Without URL: the
                  config's sources: (with their filters)
  --config FILE   site settings: its sources:, hosts: and scan.tokens; default ./config/badgepress.yaml,
                  else the packaged one
  --repos FILE    the list kept so far: its URLs a source no longer lists are looked up (renamed,
                  transferred, archived, made private, deleted) and reported on stderr
  --json          one JSON object on stdout instead of the list

Prints one repository URL a line, sorted, each in the forge's own case.
Exit codes: 0 listed, 1 a source or lookup failed (the rest is listed), 2 bad arguments or config.`;

export const DISCOVER_FLAGS = {
  config: { type: 'string' },
  repos: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** A source named on the command line: the defaults, no patterns. */
export function flagSource(url: string, flag: string): SourceSetting {
  return {
    ...SOURCE_DEFAULTS,
    url: url.replace(/\/+$/, ''),
    include: [],
    exclude: [],
    where: flag,
  };
}

/** The URLs of a repos file, for telling what left it; a file that cannot be read is a usage error. */
async function knownUrls(file: string | undefined): Promise<string[]> {
  if (file === undefined) return [];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--repos ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); name a file with one repository URL a line`,
    );
  }
  return parseTargets(text, file).targets.map((t) => t.url);
}

export async function discoverCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseFlags(argv, DISCOVER_FLAGS, DISCOVER_USAGE, true);
  // Discovery reads no store: any location satisfies the settings' loader.
  const settings = await loadSettings(v.config, { store: '.' });
  const sources =
    positionals.length > 0 ? positionals.map((u) => flagSource(u, 'argument')) : settings.sources;
  if (sources.length === 0)
    throw new UsageError(`name a source: a URL, or --config with sources:\n${DISCOVER_USAGE}`);
  for (const w of sourceWarnings(sources)) process.stderr.write(`badgepress: warning: ${w}\n`);
  const known = await knownUrls(v.repos);
  const found = await discoverSources(
    sources,
    { hosts: settings.hosts, gitTokens: settings.scan.tokens },
    process.env,
    known,
    listingProgress(process.stderr, progressShown(process.stderr)),
  );
  for (const p of found.problems) process.stderr.write(`badgepress: ${p}\n`);
  for (const m of found.moved) process.stderr.write(`badgepress: moved: ${m.from} → ${m.to}\n`);
  for (const l of found.left) process.stderr.write(`badgepress: left: ${l.url}: ${l.why}\n`);
  const exitCode = found.problems.length > 0 ? 1 : 0;
  const urls = found.targets.map((t) => t.url);
  if (v.json)
    process.stdout.write(
      `${JSON.stringify({ repositories: urls, moved: found.moved, left: found.left, problems: found.problems, requests: found.requests, exitCode })}\n`,
    );
  else process.stdout.write(urls.map((u) => `${u}\n`).join(''));
  return exitCode;
}
