// `npm start`: build the example store into dist/ and serve it, with a badge line to paste.
import { mkdirSync } from 'node:fs';
import { buildAndSay } from './build.ts';
import type { Built } from '../pipeline/run.ts';
import { integerFlag } from './args.ts';
import { UsageError } from '../errors.ts';
import { startServing, waitForSignal } from './serve.ts';

export const DEMO_USAGE = `usage: badgepress demo [--port N] [--host H] [--out DIR] [build flags…]
  builds examples/store into DIR (default dist/) and serves it on http://H:N (default 127.0.0.1:8787);
  every other flag goes to build. From npm: npm start -- --port 9000`;

/** The flags demo keeps for itself; everything else is build's. */
const OWN = ['port', 'host', 'out'] as const;
type Own = Partial<Record<(typeof OWN)[number], string>>;

/** Splits demo's own flags (`--port N` or `--port=N`) from the rest, in order. */
function demoFlags(argv: string[]): { own: Own; rest: string[] } {
  const own: Own = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = OWN.find((n) => n === m?.[1]);
    if (!m || !name) {
      rest.push(arg);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined || (m[2] === undefined && value.startsWith('--')))
      throw new UsageError(`--${name} needs a value\n${DEMO_USAGE}`);
    own[name] = value;
  }
  return { own, rest };
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { own, rest } = demoFlags(argv);
  const port = integerFlag('port', own.port, 0, 65535) ?? 8787;
  const host = own.host ?? '127.0.0.1';
  const out = own.out ?? 'dist';
  if (/^s3:\/\//i.test(out))
    throw new UsageError(
      `--out ${out}: demo serves a directory; name one, or use "badgepress build" to publish to S3`,
    );
  // Listen first, so the site is built with the address it is served at (port 0 picks one).
  mkdirSync(out, { recursive: true });
  const serving = await startServing(
    out,
    port,
    host,
    'pick another, e.g. npm start -- --port 9000',
  );
  let built: Built & { exitCode: number };
  try {
    const baseUrl = rest.some((a) => a === '--base-url' || a.startsWith('--base-url='))
      ? []
      : ['--base-url', serving.url];
    built = await buildAndSay(['--out', out, ...baseUrl, ...rest]);
  } catch (err) {
    await serving.close();
    throw err;
  }
  if (built.exitCode === 2) {
    await serving.close();
    return built.exitCode;
  }
  const base = `${serving.url}/api/v1/repositories`;
  process.stdout.write(
    `badgepress: the site is in ${out}/ and served at ${serving.url}/ (open it in a browser; the API is under ${base}/) (Ctrl+C stops)\n`,
  );
  // A repository and badge of the site just built, from what the build returned.
  const { example } = built;
  if (example) {
    const repo = `${base}/${example.repository}`;
    process.stdout.write(
      `\nTry:\n  curl ${repo}/sarif\n  curl -i "${repo}/badges/${example.badgeId}.svg?timestamp=1762000000"\n` +
        `\nREADME badge line:\n  [![${example.badgeId}](${repo}/badges/${example.badgeId}.svg)](${serving.url}/repositories/${example.repository}/)\n`,
    );
  }
  await waitForSignal();
  await serving.close();
  return 0;
}
