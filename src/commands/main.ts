// badgepress command line: dispatches to a command and maps failures to exit codes
// (0 ok, 1 built with skipped records, 2 bad config or arguments, 4 not published: a store or
// bucket failed; plan: 0 no change, 3 changes, 2 any error). With --json a failure also prints
// one JSON object on stdout, so a scheduler's log has a line for every run.
import { ConfigError } from '../config/load.ts';
import { BadInputError } from './args.ts';
import { PublishError, SHOWN_KEYS } from '../publish/sink.ts';
import { BUILD_USAGE, buildCommand } from './build.ts';
import { SERVE_USAGE, serveCommand } from './serve.ts';
import { DEMO_USAGE, demoCommand } from './demo.ts';
import { PLAN_USAGE, planCommand } from './plan.ts';
import { preferSmallHeap } from './heap.ts';
import { SITE_USAGE, siteCommand } from './site.ts';

const USAGE = `usage: badgepress <command> [flags]

commands:
  build    load stored values, evaluate them with the current thresholds, write the site
  plan     show what a build would change (statuses, files) without writing; exit 3 on changes
  serve    serve a built directory over HTTP, ?timestamp= included
  demo     build the example store into dist/ and serve it (what npm start runs)
  site     after sharded builds, write the site-wide pages from the shards' summaries

run "badgepress <command> --help" for a command's flags`;

interface Command {
  run: (argv: string[]) => Promise<number>;
  usage: string;
  /** Runs through a whole store once: keep the heap near its live set. */
  batch?: boolean;
  /** Exit code when a store or bucket fails: build says "not published" (4); plan has one code for errors (2). */
  ioFailureCode: number;
}

const commands: Record<string, Command> = {
  build: { run: buildCommand, usage: BUILD_USAGE, batch: true, ioFailureCode: 4 },
  plan: { run: planCommand, usage: PLAN_USAGE, batch: true, ioFailureCode: 2 },
  serve: { run: serveCommand, usage: SERVE_USAGE, ioFailureCode: 4 },
  demo: { run: demoCommand, usage: DEMO_USAGE, ioFailureCode: 4 },
  site: { run: siteCommand, usage: SITE_USAGE, ioFailureCode: 4 },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`badgepress: unknown command ${JSON.stringify(name)}\n${USAGE}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  if (command.batch) preferSmallHeap();
  try {
    return await command.run(rest);
  } catch (err) {
    const failure = describeFailure(err, command.ioFailureCode);
    process.stderr.write(`badgepress: ${failure.text}\n`);
    if (process.env.BADGEPRESS_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    if (rest.includes('--json')) process.stdout.write(`${JSON.stringify({ error: failure.error, ...failure.details, exitCode: failure.exitCode })}\n`);
    return failure.exitCode;
  }
}

interface Failure {
  exitCode: number;
  /** The whole message for stderr. */
  text: string;
  /** One line for the --json object, with the lists beside it. */
  error: string;
  details: Record<string, unknown>;
}

function describeFailure(err: unknown, ioFailureCode: number): Failure {
  if (err instanceof ConfigError) {
    const error = 'configuration problems, nothing written';
    return { exitCode: 2, error, text: `${error}:\n${err.problems.map((p) => `  ${p}`).join('\n')}`, details: { problems: err.problems } };
  }
  if (err instanceof PublishError) {
    const text = `${err.message}\n${err.keyLines().join('\n')}\nrun the same build again to finish; nothing already published is sent twice`;
    return { exitCode: ioFailureCode, error: err.message, text, details: { notPublishedCount: err.keys.length, notPublished: err.keys.slice(0, SHOWN_KEYS) } };
  }
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof BadInputError) return { exitCode: 2, error: message, text: message, details: {} };
  // I/O failures (a store or bucket that cannot be read): the message says what to check.
  return { exitCode: ioFailureCode, error: message, text: message, details: {} };
}
