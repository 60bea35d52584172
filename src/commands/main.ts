// badgepress command line: dispatches to a command and maps failures to exit codes
// (0 ok, 1 built with skipped records, 2 bad config or arguments, 4 not published: a store or bucket failed).
import { ConfigError } from '../config/load.ts';
import { UsageError } from './args.ts';
import { PublishError } from '../publish/sink.ts';
import { BUILD_USAGE, buildCommand } from './build.ts';
import { SERVE_USAGE, serveCommand } from './serve.ts';
import { DEMO_USAGE, demoCommand } from './demo.ts';
import { PLAN_USAGE, planCommand } from './plan.ts';
import { preferSmallHeap } from './heap.ts';

const USAGE = `usage: badgepress <command> [flags]

commands:
  build    load stored values, evaluate them with the current thresholds, write the site
  plan     show what a build would change (statuses, files) without writing; exit 3 on changes
  serve    serve a built directory over HTTP, ?timestamp= included
  demo     build the example store into dist/ and serve it (what npm start runs)

run "badgepress <command> --help" for a command's flags`;

interface Command {
  run: (argv: string[]) => Promise<number>;
  usage: string;
  /** Runs through a whole store once: keep the heap near its live set. */
  batch?: boolean;
}

const commands: Record<string, Command> = {
  build: { run: buildCommand, usage: BUILD_USAGE, batch: true },
  plan: { run: planCommand, usage: PLAN_USAGE, batch: true },
  serve: { run: serveCommand, usage: SERVE_USAGE },
  demo: { run: demoCommand, usage: DEMO_USAGE },
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
    if (err instanceof ConfigError) {
      process.stderr.write(`badgepress: configuration problems, nothing written:\n${err.problems.map((p) => `  ${p}`).join('\n')}\n`);
      return 2;
    }
    if (err instanceof PublishError) {
      process.stderr.write(`badgepress: ${err.message}\n${err.keys.map((k) => `  not published: ${k}`).join('\n')}\nrun the same build again to finish; nothing already published is sent twice\n`);
      return 4;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`badgepress: ${err.message}\n`);
      return 2;
    }
    // I/O failures (a store or bucket that cannot be read): the message says what to check.
    process.stderr.write(`badgepress: ${(err as Error).message ?? String(err)}\n`);
    if (process.env.BADGEPRESS_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return 4;
  }
}

