// badgepress command line: dispatches to a command and maps failures to exit codes
// (0 ok, 1 built with skipped records, 2 bad config or arguments, 4 not published: a store or
// bucket failed, 5 another build holds the output's lease (scan: another scan its store's); plan: 0 no change, 3 changes, 2 any error). With --json a failure also prints
// one JSON object on stdout, so a scheduler's log has a line for every run.
//
// Nothing heavy is imported here: a command's module (and with it svgo, the AWS SDK or the
// build pipeline) loads only when that command runs, so --help, --version and serve start in
// about the time of node itself (test/cli-startup.test.ts checks which modules load).
import { readFileSync } from 'node:fs';
import { addedFailures, BadgepressError, EXIT, type FailureReport } from '../errors.ts';
import { preferSmallHeap } from './heap.ts';

const USAGE = `usage: badgepress <command> [flags]

commands:
  build    load stored values, evaluate them with the current thresholds, write the site
  plan     show what a build would change (statuses, files) without writing; exit 3 on changes
  serve    serve a built directory over HTTP, ?timestamp= included
  demo     build the example store into dist/ and serve it (what npm start runs)
  site     after sharded builds, write the site-wide pages from the shards' summaries
  scan     measure the repositories a file lists (from git) and append their records to a store
  discover list the repositories of organisations, groups or instances, one URL a line
  init     write a starting config (site settings and thresholds) to edit into a directory

run "badgepress <command> --help" for a command's flags, "badgepress --version" for the version`;

interface Loaded {
  run: (argv: string[]) => Promise<number>;
  usage: string;
}

interface Command {
  /** Imports the command's module: only the command that runs is loaded. */
  load: () => Promise<Loaded>;
  /** Runs through a whole store once: keep the heap near its live set. */
  batch?: boolean;
  /** One exit code for every failure, whatever the error says (plan: 2, its codes 0 and 3 say what changes). */
  failureCode?: number;
}

const commands: Record<string, Command> = {
  build: {
    load: async () =>
      import('./build.ts').then((m) => ({ run: m.buildCommand, usage: m.BUILD_HELP })),
    batch: true,
  },
  plan: {
    load: async () =>
      import('./plan.ts').then((m) => ({ run: m.planCommand, usage: m.PLAN_USAGE })),
    batch: true,
    failureCode: 2,
  },
  serve: {
    load: async () =>
      import('./serve.ts').then((m) => ({ run: m.serveCommand, usage: m.SERVE_USAGE })),
  },
  demo: {
    load: async () =>
      import('./demo.ts').then((m) => ({ run: m.demoCommand, usage: m.DEMO_USAGE })),
  },
  site: {
    load: async () =>
      import('./site.ts').then((m) => ({ run: m.siteCommand, usage: m.SITE_USAGE })),
    batch: true,
  },
  scan: {
    load: async () =>
      import('./scan.ts').then((m) => ({
        run: (argv: string[]) => m.scanCommand(argv),
        usage: m.SCAN_HELP,
      })),
  },
  discover: {
    load: async () =>
      import('./discover.ts').then((m) => ({ run: m.discoverCommand, usage: m.DISCOVER_USAGE })),
  },
  init: {
    load: async () =>
      import('./init.ts').then((m) => ({ run: m.initCommand, usage: m.INIT_USAGE })),
  },
};

/** The version in package.json, two folders up from src/commands/ and from its compiled lib/commands/. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`badgepress: unknown command ${JSON.stringify(name)}\n${USAGE}\n`);
    return 2;
  }
  const { run, usage } = await command.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command.batch) preferSmallHeap();
  try {
    return await run(rest);
  } catch (err) {
    const failure = withAddedFailures(err, describeFailure(err, command));
    process.stderr.write(`badgepress: ${failure.text}\n`);
    if (process.env.BADGEPRESS_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    if (rest.includes('--json'))
      process.stdout.write(
        `${JSON.stringify({ error: failure.error, ...failure.details, exitCode: failure.exitCode })}\n`,
      );
    return failure.exitCode;
  }
}

interface Failure extends FailureReport {
  exitCode: number;
}

/** The failures met after the first (cleanUpAfter), each on a line of its own below it. */
function withAddedFailures(err: unknown, failure: Failure): Failure {
  const also = addedFailures(err);
  if (also.length === 0) return failure;
  return {
    ...failure,
    text: `${failure.text}\n${also.map((m) => `  also: ${m}`).join('\n')}`,
    details: { ...failure.details, also },
  };
}

/** An error says its own exit code; anything else is an I/O failure (a store or bucket that cannot be read). */
function describeFailure(err: unknown, command: Command): Failure {
  if (err instanceof BadgepressError)
    return { ...err.report(), exitCode: command.failureCode ?? err.exitCode };
  const message = (err as Error)?.message ?? String(err);
  return {
    exitCode: command.failureCode ?? EXIT.store,
    error: message,
    text: message,
    details: {},
  };
}
